#!/usr/bin/env python3
"""Does this machine switch between speed states, and what does each state slow down?

Times four small pieces of work in turn with PyTorch (2 threads), for --seconds:
- mlp: one training step of the CPU machine probe's float32 MLP (32-128-128-1, batch 128),
- gemm: a float32 256x256 at::mm (the probe before issue 30),
- dispatch: 50 tiny in-place adds (one thread's op overhead),
- stream: a 64 MiB copy (memory bandwidth).
Each sample is the median of 10 calls. A sample is in the slower state when its mlp time is over
ampbench's slow-machine factor (1.3, reports/derived_figures.h kSlowMachineFactor) times the 10th
percentile of all mlp samples: the rule a report applies to its rounds' probe times.

Prints the share of samples in each state, each piece's median per state and their ratio, and the
lengths of the slow stretches; writes every sample to OUT as JSON.

Usage (from the repository root, after scripts/bootstrap; quiet machine):
  .venv/bin/python bench/studies/host_states.py --seconds 300 --out out/host_states.json
"""
import argparse
import json
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from benchkit.machine_state import SLOW_MACHINE_FACTOR, mlp_probe_step, usual as usual_value  # noqa: E402


def pieces():
    torch.manual_seed(0)
    a, b = torch.rand(256, 256), torch.rand(256, 256)
    small = torch.rand(128)
    big = torch.rand(16 * 1024 * 1024)
    copy = torch.empty_like(big)

    def dispatch():
        for _ in range(50):
            small.add_(1e-6)

    return {"mlp": mlp_probe_step(), "gemm": lambda: torch.mm(a, b), "dispatch": dispatch, "stream": lambda: copy.copy_(big)}


def sample(work):
    work()  # untimed, like the first step of a round's block
    times = []
    for _ in range(10):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def slow_stretches(samples):
    """Seconds from the first to the last sample of each run of consecutive slow samples."""
    stretches, first = [], None
    for i, s in enumerate(samples):
        if s["slow"] and first is None:
            first = i
        last_of_run = first is not None and (i == len(samples) - 1 or not samples[i + 1]["slow"])
        if last_of_run:
            stretches.append(samples[i]["t"] - samples[first]["t"])
            first = None
    return stretches


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=300.0)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    torch.set_num_threads(2)
    work = pieces()
    samples, start = [], time.time()
    while time.time() - start < args.seconds:
        s = {name: sample(piece) for name, piece in work.items()}
        s["t"] = time.time() - start
        samples.append(s)
    usual = usual_value(s["mlp"] for s in samples)
    for s in samples:
        s["slow"] = s["mlp"] > SLOW_MACHINE_FACTOR * usual
    slow = [s for s in samples if s["slow"]]
    fast = [s for s in samples if not s["slow"]]
    print(f"{len(samples)} samples over {args.seconds:.0f} s; {len(slow)} ({len(slow) / len(samples):.0%}) in the "
          f"slower state (mlp over {SLOW_MACHINE_FACTOR}x its usual {usual * 1e6:.0f} us)")
    for name in work:
        line = f"  {name:8s} usual {statistics.median(s[name] for s in fast) * 1e6:9.1f} us"
        if slow:
            ratio = statistics.median(s[name] for s in slow) / statistics.median(s[name] for s in fast)
            line += f"   slower state {statistics.median(s[name] for s in slow) * 1e6:9.1f} us   ratio {ratio:.2f}x"
        print(line)
    stretches = slow_stretches(samples)
    if stretches:
        print(f"  slow stretches: {len(stretches)}, from {min(stretches):.0f} to {max(stretches):.0f} s")
    with open(args.out, "w") as f:
        json.dump({"usual_mlp_s": usual, "factor": SLOW_MACHINE_FACTOR, "samples": samples}, f, indent=1)


if __name__ == "__main__":
    main()
