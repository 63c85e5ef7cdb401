#!/usr/bin/env python3
"""How well ampbench's numbers repeat: runs the same suite N times back to back, then measures
what a user relies on (issue "Trustworthy numbers"):

- the identical-code gate: `ampbench check` over every ordered pair of runs (N (N - 1) pairs),
  which must pass (exit 0: pass, improved or inconclusive) since nothing changed;
- coverage: how often a run's speedup CI contains the median of the other runs' estimates;
- the spread of each cell's speedup and peak memory over the runs, and the CI half-widths;
- a synthetic slowdown: run 1's report with every step (and round) time multiplied by 1+S, checked
  against run 0, which must fail;
- the wall time of each run.

Usage (from the repository root, after scripts/build):
  bench/repeatability.py --runs 5 --out /tmp/repeat -- --workloads simplenet,simplecnn,transformer
Everything after `--` goes to `ampbench run`. Prints a summary and writes OUT/summary.json.
"""
import argparse
import copy
import itertools
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_suite(binary, out, extra):
    start = time.monotonic()
    result = subprocess.run([binary, "run", "--out", out, *extra], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    wall = time.monotonic() - start
    if result.returncode not in (0, 1):
        sys.exit(f"ampbench run failed ({result.returncode}): {result.stderr[-2000:]}")
    with open(os.path.join(out, "report.json")) as f:
        return json.load(f), wall


def check(binary, base, current):
    result = subprocess.run([binary, "check", "--baseline", base, "--current", current],
                            capture_output=True, text=True)
    return result.returncode, result.stdout


def cells_by_key(report):
    return {f'{c["workload"]}/{c["mode"]}': c for c in report["cells"] if c["status"] == "ok"}


def slowed(report, factor):
    """The report as if every step had taken `factor` times as long (the machine probe unchanged)."""
    out = copy.deepcopy(report)
    for cell in out["cells"]:
        cell["step_times_s"] = [t * factor for t in cell["step_times_s"]]
        rounds = cell.get("rounds")
        if rounds:
            rounds["step_time_s"] = [t * factor for t in rounds["step_time_s"]]
            for key in ("value", "ci_low", "ci_high"):
                rounds["step_time"][key] *= factor
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--out", required=True)
    parser.add_argument("--binary", default=os.path.join(ROOT, "build/default/bench/ampbench"))
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

    slow_path = os.path.join(args.out, "slowed.json")
    with open(slow_path, "w") as f:
        json.dump(slowed(reports[1 % args.runs], 1.0 + args.slowdown), f)
    slow_code, slow_text = check(args.binary, paths[0], slow_path)

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
    print(f"synthetic +{args.slowdown:.0%} slowdown: check exit {slow_code} (must be 1)")
    for failure in failures:
        print(f"--- check run{failure['baseline']} -> run{failure['current']} exit {failure['exit']}")
        print(failure["output"])


if __name__ == "__main__":
    main()
