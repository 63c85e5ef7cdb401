"""How steady explain's GEMM verdict is from run to run, and whether its ratio agrees with PyTorch.

Why: `explain` says whether a cell's dtype has a faster GEMM than float32 (`native-gemm`), a slower
one (`no-native-gemm`) or one it cannot tell apart (`gemm-like-float32`), from `versus_float32`
in report.json: each dtype's at::mm timed in rounds interleaved with float32's, the median ratio
and its interval. Before it, the verdict compared two peaks timed one after the other, and on a
2-core Xeon whose float16 GEMM runs at about float32's speed it flipped between "has native
float16 GEMM" and "does not gain" from one run to the next. This runs a short suite N times and
prints, per run and dtype, the ratio with its interval, the verdict explain gave, and the verdict
the two peaks alone would give (the rule before); then, as an independent measurement of the same
thing, PyTorch's own torch.mm(a, b.t()) in the same interleaved rounds at the sizes that run
paired each dtype with float32 at (median of the per-round ratios of the fastest call per round).

Usage: .venv/bin/python bench/studies/gemm_verdicts.py --runs 10 --out DIR [--binary B]
Prints a Markdown table (docs/performance.md, "Which dtype's GEMM is faster").
"""

import argparse
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from benchkit.paths import DEFAULT_BINARY  # noqa: E402
from benchkit.suite_runs import run_suite  # noqa: E402

GEMM_IDS = ("native-gemm", "no-native-gemm", "gemm-like-float32")
DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}
CELL_OF = {"float16": "simplenet/fp16", "bfloat16": "simplenet/bf16"}
ROUNDS = 12
WINDOW_S = 0.02  # per dtype per round, as ampbench's rounds


def verdict_by_peaks(peaks, dtype):
    """The rule before the rounds: the two peaks' ratio, faster from 1 up."""
    return "native-gemm" if peaks[dtype]["flops_per_s"] >= peaks["float32"]["flops_per_s"] else "no-native-gemm"


def explain_verdict(report, dtype):
    for finding in report.get("explanation", []):
        if finding["cell"].startswith(CELL_OF[dtype] + "/") and finding["id"] in GEMM_IDS:
            return finding["id"]
    return "-"


def paired_sizes(peaks, dtype):
    """(the dtype's size, float32's) of the rounds behind versus_float32: the size both were timed
    at where the report names one, else each at its own peak's size."""
    common = peaks[dtype]["versus_float32"].get("matrix_size")
    if common:
        return common, common
    return peaks[dtype]["matrix_size"], peaks["float32"]["matrix_size"]


def fastest_call(call, window_s):
    best = float("inf")
    calls = 0
    start = time.perf_counter()
    while calls < 2 or time.perf_counter() - start < window_s:
        t = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - t)
        calls += 1
    return best


def torch_ratios(pairs):
    """torch.mm(a, b.t()) per (dtype, size) the pairs need, in interleaved rounds; per dtype, paired
    as {dtype: (its size, float32's size)}, the median of the per-round ratios float32's time per
    FLOP / its time per FLOP."""
    keys = sorted({("float32", f32) for _, f32 in pairs.values()} | {(d, s) for d, (s, _) in pairs.items()})
    calls = {}
    for name, size in keys:
        a = torch.randn(size, size, dtype=DTYPES[name])
        b = torch.randn(size, size, dtype=DTYPES[name])
        out = torch.empty(size, size, dtype=DTYPES[name])
        calls[(name, size)] = (lambda a=a, b=b, out=out: torch.mm(a, b.t(), out=out), 2.0 * size**3)
    per_flop = {key: [] for key in keys}
    for round_index in range(ROUNDS):
        order = keys[round_index % len(keys):] + keys[:round_index % len(keys)]
        for key in order:
            call, flops = calls[key]
            per_flop[key].append(fastest_call(call, WINDOW_S) / flops)
    return {d: statistics.median(f / t for f, t in zip(per_flop[("float32", f32)], per_flop[(d, s)]))
            for d, (s, f32) in pairs.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--out", required=True)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--binary", default=str(DEFAULT_BINARY))
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    extra = ["--workloads", "simplenet", "--replicates", "1", "--numerics-steps", "0", "--no-breakdown",
             "--time-cap", "1", "--threads", str(args.threads)]
    print("| run | dtype | peaks' sizes (dtype / float32), paired at | ampbench: versus_float32 | explain | "
          "the peaks alone | "
          "torch.mm, same rounds |")
    print("|---|---|---|---|---|---|---|")
    tally = {}
    for run in range(args.runs):
        report, _ = run_suite(args.binary, os.path.join(args.out, f"run{run}"), extra)
        peaks = {p["dtype"]: p for p in report["environment"]["gemm_peaks"] if p["status"] == "measured"}
        pairs = {dtype: paired_sizes(peaks, dtype) for dtype in ("float16", "bfloat16")}
        torch_ratio = torch_ratios(pairs)
        for dtype in ("float16", "bfloat16"):
            ratio = peaks[dtype]["versus_float32"]
            said = explain_verdict(report, dtype)
            before = verdict_by_peaks(peaks, dtype)
            tally.setdefault(dtype, {}).setdefault((said, before), 0)
            tally[dtype][(said, before)] += 1
            paired = "each its own" if pairs[dtype][0] != pairs[dtype][1] else str(pairs[dtype][0])
            print(f"| {run} | {dtype} | {peaks[dtype]['matrix_size']} / {peaks['float32']['matrix_size']}, {paired} | "
                  f"{ratio['value']:.3f} [{ratio['ci_low']:.3f}, {ratio['ci_high']:.3f}] | {said} | "
                  f"{before} ({peaks[dtype]['flops_per_s'] / peaks['float32']['flops_per_s']:.3f}) | "
                  f"{torch_ratio[dtype]:.3f} |", flush=True)
    print()
    for dtype, counts in tally.items():
        for (said, before), count in sorted(counts.items()):
            print(f"{dtype}: explain {said}, the peaks alone {before}: {count} of {args.runs} runs")


if __name__ == "__main__":
    main()
