#!/usr/bin/env python3
"""What the numerics pass (issue "Loss divergence that means something") costs and whether its
figures carry weight: runs the suite in pairs, with the pass and with --numerics-steps 0, the
order alternating so a drifting machine favours neither, then reports

- the wall-time ratio with/without per pair (geometric mean, min, max) and the pass's own time
  (the sum of its runs' wall_s, from the report);
- from each report with the pass: every AMP cell's verdict with its final relative difference and
  floor (a verdict must agree with its figures: "within the noise floor" only at ratio <= 1,
  "diverged" only beyond the floor multiple), whether both figures are non-zero, and whether
  FP32's eval loss still falls over the last quarter of the pass in every workload.

Usage (from the repository root, after scripts/build):
  bench/numerics_cost.py --pairs 3 --out out/numerics
Everything after `--` goes to both `ampbench run`s. Prints a summary and writes OUT/summary.json.
"""
import argparse
import json
import math
import os
import statistics
import sys

from suite_runs import run_suite

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def pass_seconds(report):
    total = 0.0
    for cell in report["cells"]:
        numerics = cell.get("numerics")
        if numerics:
            total += numerics["run"]["wall_s"] + (numerics["floor"]["wall_s"] if numerics.get("floor") else 0.0)
    return total


def verdict_agrees(divergence):
    ratio, verdict = divergence["ratio_to_floor"], divergence["verdict"]
    return {"within the noise floor": ratio <= 1.0,
            "above the floor": 1.0 < ratio <= divergence["floor_multiple"],
            "diverged": ratio > divergence["floor_multiple"],
            "non-finite loss": True}[verdict]


def fp32_still_learning(cell):
    numerics = cell["numerics"]
    steps, at, loss = numerics["steps"], numerics["eval_steps"], numerics["run"]["eval_loss"]
    three_quarters = next(i for i, step in enumerate(at) if 4 * step >= 3 * steps)
    return loss[-1] < loss[three_quarters]


def judge(report):
    cells = []
    for cell in report["cells"]:
        if cell["status"] != "ok" or not cell.get("numerics"):
            continue
        row = {"cell": f'{cell["workload"]}/{cell["mode"]}'}
        if cell["mode"] == "fp32":
            row["fp32_still_learning"] = fp32_still_learning(cell)
        divergence = cell.get("divergence")
        if divergence:
            row.update({k: divergence[k] for k in ("verdict", "final_relative_difference", "final_floor",
                                                    "ratio_to_floor")})
            row["verdict_agrees"] = verdict_agrees(divergence)
            row["both_non_zero"] = divergence["final_relative_difference"] > 0 and divergence["final_floor"] > 0
        cells.append(row)
    return cells


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--out", required=True)
    parser.add_argument("--binary", default=os.path.join(ROOT, "build/default/bench/ampbench"))
    parser.add_argument("extra", nargs="*", help="arguments for `ampbench run` (after --)")
    args = parser.parse_args()

    ratios, pass_shares, judged = [], [], []
    for pair in range(args.pairs):
        order = [("with", []), ("without", ["--numerics-steps", "0"])]
        if pair % 2:
            order.reverse()
        walls = {}
        for name, flags in order:
            report, walls[name] = run_suite(args.binary, os.path.join(args.out, f"{name}{pair}"), [*flags, *args.extra])
            if name == "with":
                pass_shares.append(pass_seconds(report))
                judged.append(judge(report))
        ratios.append(walls["with"] / walls["without"])
        print(f"pair {pair}: with {walls['with']:.1f} s, without {walls['without']:.1f} s, ratio {ratios[-1]:.3f}, "
              f"the pass's runs {pass_shares[-1]:.1f} s", file=sys.stderr)

    geomean = math.exp(statistics.mean(math.log(r) for r in ratios))
    rows = [row for run in judged for row in run]
    summary = {
        "wall_ratio": {"values": ratios, "geometric_mean": geomean, "min": min(ratios), "max": max(ratios)},
        "pass_run_seconds": pass_shares,
        "verdicts_agree": all(row.get("verdict_agrees", True) for row in rows),
        "figures_non_zero": all(row.get("both_non_zero", True) for row in rows),
        "fp32_still_learning": all(row.get("fp32_still_learning", True) for row in rows),
        "runs": judged,
    }
    print(f"wall with / without the pass: {geomean:.3f} (min {min(ratios):.3f}, max {max(ratios):.3f}) over "
          f"{len(ratios)} pairs")
    for row in rows:
        if "verdict" in row:
            print(f'  {row["cell"]}: {row["verdict"]} ({row["final_relative_difference"]:.3g} vs floor '
                  f'{row["final_floor"]:.3g}, ratio {row["ratio_to_floor"]:.3g})')
    for key in ("verdicts_agree", "figures_non_zero", "fp32_still_learning"):
        print(f"{key}: {summary[key]}")
    with open(os.path.join(args.out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)


if __name__ == "__main__":
    main()
