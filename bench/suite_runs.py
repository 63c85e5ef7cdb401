"""Shared by the Python benchmarks that run the whole suite: one `ampbench run`, its report and
its wall time, and how they print a figure over repetitions."""
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
