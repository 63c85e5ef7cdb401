#!/usr/bin/env python3
"""What taking turns costs: FP32's step time when it runs alone (its steps back to back, with
only the machine probe between them) against FP32 interleaved step by step with another mode's
model (issue "Trustworthy numbers": alternating may evict each model's weights and activations
from the caches). Runs the two settings alternately, N pairs, and reports per workload the ratio
interleaved / alone of FP32's step time, pair by pair, with its geometric mean and spread.

Usage (from the repository root, after scripts/build):
  bench/alternation_cost.py --pairs 4 --out out/alternation [--other bf16] [-- more run flags]
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def fp32_step_times(binary, out, modes, extra):
    result = subprocess.run([binary, "run", "--modes", modes, "--out", out, *extra], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    if result.returncode != 0:
        sys.exit(f"ampbench run failed ({result.returncode}): {result.stderr[-2000:]}")
    with open(os.path.join(out, "report.json")) as f:
        report = json.load(f)
    return {c["workload"]: c["rounds"]["step_time"]["value"] for c in report["cells"] if c["mode"] == "fp32"}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, default=4)
    parser.add_argument("--out", required=True)
    parser.add_argument("--other", default="bf16", help="the mode FP32 takes turns with")
    parser.add_argument("--binary", default=os.path.join(ROOT, "build/default/bench/ampbench"))
    parser.add_argument("extra", nargs="*", help="arguments for `ampbench run` (after --)")
    args = parser.parse_args()

    ratios = {}
    for pair in range(args.pairs):
        # Alternate which setting goes first, so a drifting machine favours neither.
        order = [("alone", "fp32"), ("interleaved", f"fp32,{args.other}")]
        if pair % 2:
            order.reverse()
        times = {name: fp32_step_times(args.binary, os.path.join(args.out, f"{name}{pair}"), modes, args.extra)
                 for name, modes in order}
        for workload, alone in times["alone"].items():
            ratios.setdefault(workload, []).append(times["interleaved"][workload] / alone)
        print(f"pair {pair}: " + ", ".join(f"{w} {r[-1]:.3f}" for w, r in ratios.items()), file=sys.stderr)

    summary = {}
    for workload, values in ratios.items():
        geomean = math.exp(statistics.mean(math.log(v) for v in values))
        summary[workload] = {"ratios": values, "geometric_mean": geomean, "min": min(values), "max": max(values)}
        print(f"{workload}: fp32 interleaved with {args.other} / alone = {geomean:.3f} "
              f"(pairs {', '.join(f'{v:.3f}' for v in values)})")
    with open(os.path.join(args.out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=2)


if __name__ == "__main__":
    main()
