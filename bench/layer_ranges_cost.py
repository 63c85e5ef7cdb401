#!/usr/bin/env python3
"""What the per-layer range statistics (issue #34) cost: the same suite run by two binaries, one
with them (--binary, this tree's) and one from before them (--baseline: a build of an earlier
commit), in pairs whose order alternates so that a drifting machine favours neither. Per workload:

- the numerics pass's wall time (every mode's run plus FP32's floor run, from report.json's
  wall_s), with/without per pair: geometric mean, min and max of the ratios (target <= 1.30);
- every timed cell's step time, with/without per pair: the statistics never run in the timed
  steps, so these ratios are the machine's noise around 1.

Usage (from the repository root, after scripts/build; the baseline built from another worktree):
  git worktree add ../wt-old <commit before the statistics> && (cd ../wt-old && scripts/build default ampbench)
  bench/layer_ranges_cost.py --baseline ../wt-old/build/default/bench/ampbench --pairs 3 --out out/layer-cost
Everything after `--` goes to both `ampbench run`s (default: the default suite, one replicate, no
breakdown). Prints a summary and writes OUT/summary.json.
"""
import argparse
import json
import math
import os
import statistics

from suite_runs import run_suite

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def pass_seconds(report):
    """Per workload: the numerics pass's wall time, every mode's run and the floor run."""
    seconds = {}
    for cell in report["cells"]:
        numerics = cell.get("numerics")
        if numerics:
            floor = numerics["floor"]["wall_s"] if numerics.get("floor") else 0.0
            seconds[cell["workload"]] = seconds.get(cell["workload"], 0.0) + numerics["run"]["wall_s"] + floor
    return seconds


def step_seconds(report):
    return {f"{c['workload']}/{c['mode']}": c["throughput"]["step_time_s"]["median"]
            for c in report["cells"] if c["status"] == "ok"}


def spread(ratios):
    return {"geomean": math.exp(statistics.fmean(math.log(r) for r in ratios)), "min": min(ratios),
            "max": max(ratios), "pairs": len(ratios)}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline", required=True, help="an ampbench binary from before the statistics")
    parser.add_argument("--binary", default=os.path.join(ROOT, "build/default/bench/ampbench"))
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--out", required=True)
    parser.add_argument("extra", nargs="*", help="arguments for `ampbench run` (after --)")
    args = parser.parse_args()
    extra = args.extra or ["--replicates", "1", "--no-breakdown"]

    pass_ratios, step_ratios, runs = {}, {}, []
    for pair in range(args.pairs):
        order = [("with", args.binary), ("without", args.baseline)]
        if pair % 2:
            order.reverse()
        reports = {}
        for name, binary in order:
            report, wall = run_suite(binary, os.path.join(args.out, f"pair{pair}-{name}"), extra)
            reports[name] = report
            runs.append({"pair": pair, "binary": name, "wall_s": wall, "pass_s": pass_seconds(report)})
        with_pass, without_pass = pass_seconds(reports["with"]), pass_seconds(reports["without"])
        for workload, seconds in with_pass.items():
            pass_ratios.setdefault(workload, []).append(seconds / without_pass[workload])
        with_steps, without_steps = step_seconds(reports["with"]), step_seconds(reports["without"])
        for cell, seconds in with_steps.items():
            if cell in without_steps:
                step_ratios.setdefault(cell, []).append(seconds / without_steps[cell])

    summary = {"pass_ratio": {w: spread(r) for w, r in pass_ratios.items()},
               "step_ratio": {c: spread(r) for c, r in step_ratios.items()}, "runs": runs}
    with open(os.path.join(args.out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    print("numerics pass wall time, with the statistics / without (target <= 1.30):")
    for workload, s in summary["pass_ratio"].items():
        print(f"  {workload}: {s['geomean']:.3f} [{s['min']:.3f}, {s['max']:.3f}] over {s['pairs']} pairs")
    print("timed step time, with / without (the statistics never run there):")
    for cell, s in summary["step_ratio"].items():
        print(f"  {cell}: {s['geomean']:.3f} [{s['min']:.3f}, {s['max']:.3f}]")


if __name__ == "__main__":
    main()
