#!/usr/bin/env python3
"""How well ampbench's numbers repeat: runs the same suite N times back to back, then measures
what a user relies on (issue "Trustworthy numbers"):

- the identical-code gate: `ampbench check` over every ordered pair of runs (N (N - 1) pairs),
  which must pass (exit 0: pass, improved or inconclusive) since nothing changed;
- coverage: how often a run's speedup CI contains the median of the other runs' estimates;
- the spread of each cell's speedup and peak memory over the runs, and the CI half-widths;
- a synthetic slowdown: each run's report with every step (and round) time multiplied by 1+S,
  checked against the same run (the machine unchanged: must fail) and against every other run
  (how often the gate catches S across the machine's drift);
- how much of the drift between runs the machine probe takes out: per cell and pair of runs, the
  change of the geometric mean step time, raw and divided by the probe;
- the wall time of each run.

Usage (from the repository root, after scripts/build):
  bench/repeatability.py --runs 5 --out out/repeat -- --workloads simplenet,simplecnn,transformer
  bench/repeatability.py --runs 5 --out out/repeat1 -- --replicates 1   (one worker per workload)
Everything after `--` goes to `ampbench run`. Prints a summary and writes OUT/summary.json.
"""
import argparse
import itertools
import json
import math
import os
import statistics
import subprocess
import sys

from benchkit.suite_runs import run_suite, slowed
from benchkit.paths import DEFAULT_BINARY



def check(binary, base, current):
    result = subprocess.run([binary, "check", "--baseline", base, "--current", current],
                            capture_output=True, text=True)
    return result.returncode, result.stdout


def cells_by_key(report):
    return {f'{c["workload"]}/{c["mode"]}': c for c in report["cells"] if c["status"] == "ok"}


def geometric_mean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


def drift(reports, keys):
    """Median |log change| between runs of each cell's step time, raw and per machine probe."""
    raw, normalised = [], []
    for key in keys:
        rounds = [cells_by_key(r)[key].get("rounds") for r in reports]
        if not all(rounds) or not all(r["probe_s"] for r in rounds):
            continue
        level = [math.log(geometric_mean(r["step_time_s"])) for r in rounds]
        per_probe = [math.log(geometric_mean([s / p for s, p in zip(r["step_time_s"], r["probe_s"])]))
                     for r in rounds]
        for i, j in itertools.combinations(range(len(rounds)), 2):
            raw.append(abs(level[j] - level[i]))
            normalised.append(abs(per_probe[j] - per_probe[i]))
    if not raw:
        return None
    return {"raw": math.expm1(statistics.median(raw)), "per_probe": math.expm1(statistics.median(normalised))}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--out", required=True)
    parser.add_argument("--binary", default=str(DEFAULT_BINARY))
    parser.add_argument("--slowdown", type=float, default=0.15)
    parser.add_argument("extra", nargs="*", help="arguments for `ampbench run` (after --)")
    args = parser.parse_args()

    reports, walls, paths = [], [], []
    for i in range(args.runs):
        out = os.path.join(args.out, f"run{i}")
        report, wall = run_suite(args.binary, out, args.extra)
        reports.append(report)
        walls.append(wall)
        paths.append(os.path.join(out, "report.json"))
        print(f"run {i}: {wall:.1f} s", file=sys.stderr)

    pairs = list(itertools.permutations(range(args.runs), 2))
    failures = []
    for i, j in pairs:
        code, text = check(args.binary, paths[i], paths[j])
        if code != 0:
            failures.append({"baseline": i, "current": j, "exit": code, "output": text})

    keys = sorted(set.intersection(*(set(cells_by_key(r)) for r in reports)))
    covered = total = 0
    per_cell = {}
    half_widths = []
    for key in keys:
        cells = [cells_by_key(r)[key] for r in reports]
        memory = [c["memory"]["peak_tensor_bytes"] for c in cells]
        entry = {"peak_tensor_bytes": memory,
                 "memory_spread": (max(memory) - min(memory)) / max(1, min(memory))}
        speedups = [c.get("speedup_vs_fp32") for c in cells]
        if all(speedups):
            values = [s["value"] for s in speedups]
            for i, s in enumerate(speedups):
                others = statistics.median(v for j, v in enumerate(values) if j != i)
                covered += s["ci_low"] <= others <= s["ci_high"]
                total += 1
                half_widths.append((s["ci_high"] - s["ci_low"]) / 2 / s["value"])
            entry.update({"speedups": values, "speedup_spread": (max(values) - min(values)) / statistics.median(values),
                          "ci": [[s["ci_low"], s["ci_high"]] for s in speedups]})
        per_cell[key] = entry

    slow_paths = []
    for i, report in enumerate(reports):
        slow_paths.append(os.path.join(args.out, f"run{i}", "slowed.json"))
        with open(slow_paths[-1], "w") as f:
            json.dump(slowed(report, 1.0 + args.slowdown), f)
    slow_code, slow_text = check(args.binary, paths[0], slow_paths[0])
    slow_caught = sum(check(args.binary, paths[i], slow_paths[j])[0] == 1 for i, j in pairs)

    summary = {
        "runs": args.runs,
        "arguments": args.extra,
        "wall_s": walls,
        "identical_check_pass": len(pairs) - len(failures),
        "identical_check_pairs": len(pairs),
        "identical_check_failures": failures,
        "coverage": covered / total if total else None,
        "coverage_counts": [covered, total],
        "median_speedup_ci_half_width": statistics.median(half_widths) if half_widths else None,
        "max_memory_spread": max((c["memory_spread"] for c in per_cell.values()), default=0.0),
        "synthetic_slowdown": args.slowdown,
        "synthetic_slowdown_check_exit": slow_code,
        "synthetic_slowdown_check_output": slow_text,
        "synthetic_slowdown_caught_across_runs": slow_caught,
        "drift_between_runs_median": drift(reports, keys),
        "cells": per_cell,
    }
    with open(os.path.join(args.out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=2)
    print(f"identical-code check passed {summary['identical_check_pass']} of {len(pairs)} ordered pairs")
    if total:
        print(f"speedup CI contains the other runs' median: {covered} of {total} ({covered / total:.0%})")
        print(f"median speedup CI half-width: {summary['median_speedup_ci_half_width']:.1%}")
    for key, entry in per_cell.items():
        speed = entry.get("speedups")
        speed_text = ("speedups " + ", ".join(f"{v:.2f}" for v in speed) + f" (spread {entry['speedup_spread']:.0%})"
                      if speed else "reference")
        print(f"  {key}: {speed_text}; peak memory spread {entry['memory_spread']:.2%}")
    print(f"wall per run: {', '.join(f'{w:.0f} s' for w in walls)}")
    print(f"synthetic +{args.slowdown:.0%} slowdown of run 0 against run 0: check exit {slow_code} (must be 1); "
          f"of run j against run i: caught in {slow_caught} of {len(pairs)} pairs")
    if summary["drift_between_runs_median"]:
        d = summary["drift_between_runs_median"]
        print(f"median change of a cell's step time between identical runs: raw {d['raw']:.1%}, "
              f"per machine probe {d['per_probe']:.1%}")
    for failure in failures:
        print(f"--- check run{failure['baseline']} -> run{failure['current']} exit {failure['exit']}")
        print(failure["output"])


if __name__ == "__main__":
    main()
