"""Shared by the Python benchmarks that run the whole suite: one `ampbench run`, its report and
its wall time, a report slowed by a factor, and how they print a figure over repetitions."""
import copy
import json
import os
import statistics
import subprocess
import sys
import time


def run_suite(binary, out, extra):
    """Runs `binary run --out OUT EXTRA...`; returns (report, wall seconds). Exit 1 (a failed
    cell) still gives a report; anything else ends the benchmark."""
    start = time.monotonic()
    result = subprocess.run([binary, "run", "--out", out, *extra], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    wall = time.monotonic() - start
    if result.returncode not in (0, 1):
        sys.exit(f"ampbench run failed ({result.returncode}): {result.stderr[-2000:]}")
    with open(os.path.join(out, "report.json")) as f:
        return json.load(f), wall


def spread(values):
    """A figure over repetitions as "median [min, max]"; "-" when it has none."""
    return f"{statistics.median(values):.3f} [{min(values):.3f}, {max(values):.3f}]" if values else "-"


def slowed(report, factor):
    """The report as if every step had taken `factor` times as long (the machine probe unchanged),
    with the figures derived from the steps scaled with them: ampbench refuses a report whose
    summaries disagree with its samples. Speedups and memory ratios are unchanged (every cell is
    slower by the same factor)."""
    out = copy.deepcopy(report)
    for cell in out["cells"]:
        if cell["status"] != "ok":
            continue
        cell["step_times_s"] = [t * factor for t in cell["step_times_s"]]
        summary = cell["throughput"]["step_time_s"]
        for key in ("median", "ci_low", "ci_high", "p10", "p90", "mean", "stddev"):
            if summary[key] is not None:
                summary[key] *= factor
        for key in ("samples_per_s", "tokens_per_s", "achieved_flops_per_s", "fraction_of_peak"):
            if cell["throughput"].get(key) is not None:
                cell["throughput"][key] /= factor
        rounds = cell.get("rounds")
        if rounds:
            rounds["step_time_s"] = [t * factor for t in rounds["step_time_s"]]
            for key in ("value", "ci_low", "ci_high"):
                rounds["step_time"][key] *= factor
    return out
