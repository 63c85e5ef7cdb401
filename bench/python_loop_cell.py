#!/usr/bin/env python3
"""One mode of one workload in PyTorch's own loop (bench/benchkit/python_loop.py, the replicas of the tutorials'
loop), in this process alone; bench/validity.py runs it once per cell under an allocator policy.

The timed steps run in rounds of --round-steps, as ampbench's blocks: before each round, outside
its timing, the machine probe's MLP step (bench/benchkit/machine_state.py) is timed (median of 3 calls),
then one untimed step meets what the probe left behind; so the steps can be judged by the machine
state they ran in, as ampbench's rounds are. Prints one JSON object: {"step_s": [...],
"probe_s": [...]}, one of each per timed step (a round's probe reading for each of its steps).

Usage: python_loop_cell.py WORKLOAD MODE PRESET --steps N --warmup N --threads N --round-steps N [--device D]
"""
import argparse
import json
import statistics
import time

from benchkit import machine_state, python_loop

PROBE_CALLS = 3


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("workload", choices=python_loop.WORKLOADS)
    parser.add_argument("mode", choices=python_loop.MODES)
    parser.add_argument("preset", choices=python_loop.PRESETS)
    parser.add_argument("--steps", type=int, required=True)
    parser.add_argument("--warmup", type=int, required=True)
    parser.add_argument("--threads", type=int, required=True)
    parser.add_argument("--round-steps", type=int, required=True)
    parser.add_argument("--device", default="cpu", help="where the model trains (cpu, cuda, cuda:N); the probe stays on the CPU")
    args = parser.parse_args()
    probe, probe_s = machine_state.mlp_probe_step(), []

    def time_probe():
        times = []
        for _ in range(PROBE_CALLS):
            start = time.perf_counter()
            probe()
            times.append(time.perf_counter() - start)
        probe_s.append(statistics.median(times))

    settings = python_loop.RunSettings(args.warmup, args.steps, args.threads, 0)
    step_s, _ = python_loop.run_python_cell(args.workload, args.mode, args.preset, settings,
                                             between_rounds=time_probe, round_steps=args.round_steps,
                                             device=args.device)
    print(json.dumps({"step_s": step_s, "probe_s": [probe_s[i // args.round_steps] for i in range(len(step_s))]}))


if __name__ == "__main__":
    main()
