#!/usr/bin/env python3
"""Are ampbench's step times and speedups the ones a mode gets on its own? (issue "Valid numbers")

Per default-suite cell, under one allocator policy, three measurements of the same thing:
  paired  the suite as users run it: every mode of a workload interleaved in the same workers;
  alone   each mode in its own `ampbench run --modes MODE` (no other mode in its workers);
  python  PyTorch's own loop (bench/side_by_side.py's replicas of the tutorials' loop), each mode
          in a Python process of its own, under the same policy (LD_PRELOAD or glibc's tunables
          with the values ampbench's mallopt sets).
The three kinds run in an order that rotates every repetition, N repetitions. Per cell and
repetition: ampbench's step time is the report's estimate over rounds (geometric mean over
workers), Python's the median step; speedups are FP32's step time over the mode's within the same
kind and repetition. Printed per cell: medians over repetitions with the min-max spread of
paired/alone (step time, speedup) and of paired/python (speedup), against the issue's targets
(within 5% of alone, within 10% of PyTorch's loop). Writes every figure to OUT/validity.json.

Usage (after scripts/build; about 2.5 minutes per repetition on a quiet 2-core CPU):
  .venv/bin/python bench/validity.py --reps 5 --allocator glibc-fixed --out /tmp/validity
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

from suite_runs import run_suite

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODES = ("fp32", "fp16", "bf16")
KINDS = ("paired", "alone", "python")
PYTHON_STEPS = {"simplenet": 100, "simplecnn": 20, "transformer": 20}  # timed steps per Python cell
PYTHON_WARMUP = 3
# glibc-fixed's thresholds as glibc's tunables, so the Python loop runs under the same policy
# (harness/src/worker/worker_allocator.cpp sets them with mallopt).
GLIBC_FIXED = {"MALLOC_MMAP_THRESHOLD_": "1073741824", "MALLOC_TRIM_THRESHOLD_": "2147483647"}
PRELOADS = {"jemalloc": "libjemalloc.so.2", "tcmalloc": "libtcmalloc_minimal.so.4"}


def policy_environment(policy, report):
    """This process's environment for the Python side, with the policy's allocator and nothing else's."""
    env = {k: v for k, v in os.environ.items()
           if not (k.startswith("MALLOC_") or k.startswith("TCMALLOC_") or k == "LD_PRELOAD")}
    if policy == "glibc-fixed":
        env.update(GLIBC_FIXED)
    elif policy in PRELOADS:
        env["LD_PRELOAD"] = report["environment"]["allocator"]["library"]  # the one ampbench's workers ran
    return env


def ampbench_step_times(report):
    """{(workload, mode): step time over rounds} of a report's cells that ran."""
    return {(c["workload"], c["mode"]): c["rounds"]["step_time"]["value"]
            for c in report["cells"] if c["status"] == "ok" and c.get("rounds")}


def python_cell(workload, mode, preset, threads, env):
    """One mode's step time in PyTorch's loop, in a Python process of its own (median step)."""
    code = ("import json, sys, statistics; sys.path.insert(0, {bench!r}); import side_by_side as s; "
            "times, _ = s.run_python_cell({w!r}, {m!r}, {p!r}, s.RunSettings({warm}, {steps}, {t}, 0)); "
            "print(json.dumps(statistics.median(times)))").format(
        bench=os.path.join(ROOT, "bench"), w=workload, m=mode, p=preset, warm=PYTHON_WARMUP,
        steps=PYTHON_STEPS[workload], t=threads)
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"validity.py: the Python loop failed for {workload}/{mode}: {done.stderr[-1500:]}")
    return float(done.stdout.strip().splitlines()[-1])


def run_kind(kind, args, out, common, paired_report):
    if kind == "paired":
        report, wall = run_suite(args.binary, out, common)
        return ampbench_step_times(report), wall, report
    start = time.monotonic()
    times = {}
    if kind == "alone":
        for mode in MODES:
            report, _ = run_suite(args.binary, f"{out}-{mode}", [*common, "--modes", mode])
            times.update({key: t for key, t in ampbench_step_times(report).items() if key[1] == mode})
    else:
        env = policy_environment(args.allocator, paired_report)
        for workload in args.workloads:
            for mode in MODES:
                times[(workload, mode)] = python_cell(workload, mode, args.preset, args.threads, env)
    return times, time.monotonic() - start, None


def speedups(times):
    return {(w, m): times[(w, "fp32")] / t for (w, m), t in times.items()
            if m != "fp32" and (w, "fp32") in times}


def spread(values):
    return f"{statistics.median(values):.3f} [{min(values):.3f}, {max(values):.3f}]"


def summarise(reps, workloads):
    """Per cell, over repetitions: paired/alone step-time ratio, and paired speedup over alone's
    and over Python's, each as median [min, max], with the targets."""
    rows, verdicts = [], []
    for workload in workloads:
        for mode in MODES:
            key = (workload, mode)
            time_ratio = [r["paired"][key] / r["alone"][key] for r in reps if key in r["paired"] and key in r["alone"]]
            row = {"cell": f"{workload}/{mode}", "paired_over_alone_time": time_ratio}
            if mode != "fp32":
                sp = [speedups(r["paired"]) for r in reps]
                row["paired_over_alone_speedup"] = [s[key] / speedups(r["alone"])[key] for s, r in zip(sp, reps)
                                                    if key in s and key in speedups(r["alone"])]
                row["paired_over_python_speedup"] = [s[key] / speedups(r["python"])[key] for s, r in zip(sp, reps)
                                                     if "python" in r and key in s and key in speedups(r["python"])]
                row["paired_speedup"] = [s[key] for s in sp if key in s]
            rows.append(row)
            checks = [("paired_over_alone_time", 0.05), ("paired_over_alone_speedup", 0.05),
                      ("paired_over_python_speedup", 0.10)]
            for name, tolerance in checks:
                if row.get(name):
                    verdicts.append((row["cell"], name, abs(statistics.median(row[name]) - 1.0) <= tolerance))
    return rows, verdicts


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--allocator", default="glibc-fixed")
    parser.add_argument("--out", required=True)
    parser.add_argument("--binary", default=os.path.join(ROOT, "build/default/bench/ampbench"))
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--device", default="auto", help="passed to ampbench run; the Python loop runs on the CPU")
    parser.add_argument("--preset", default="default")
    parser.add_argument("--workloads", default="simplenet,simplecnn,transformer")
    parser.add_argument("--no-python", action="store_true", help="paired and alone only")
    args = parser.parse_args()
    args.workloads = args.workloads.split(",")
    os.makedirs(args.out, exist_ok=True)
    common = ["--allocator", args.allocator, "--threads", str(args.threads), "--preset", args.preset, "--device", args.device,
              "--workloads", ",".join(args.workloads), "--replicates", "3", "--numerics-steps", "0",
              "--no-breakdown"]
    kinds = [k for k in KINDS if not (args.no_python and k == "python")]
    reps = []
    for rep in range(args.reps):
        order = kinds[rep % len(kinds):] + kinds[:rep % len(kinds)]
        figures, paired_report = {"order": order, "wall_s": {}}, None
        for kind in order:
            if kind == "python" and paired_report is None:  # needs the policy's library as ampbench found it
                paired_report = json.load(open(os.path.join(args.out, "rep0-paired", "report.json")))
            times, wall, report = run_kind(kind, args, os.path.join(args.out, f"rep{rep}-{kind}"), common,
                                           paired_report)
            paired_report = report or paired_report
            figures[kind], figures["wall_s"][kind] = times, wall
            print(f"rep {rep + 1}/{args.reps} {kind}: {wall:.0f} s", file=sys.stderr, flush=True)
        reps.append(figures)
    rows, verdicts = summarise(reps, args.workloads)
    print(f"allocator {args.allocator}, {args.reps} repetitions, median [min, max] over them")
    print(f"{'cell':<20} {'paired/alone time':<24} {'paired/alone speedup':<24} {'paired/python speedup':<24} "
          "paired speedup")
    for row in rows:
        cols = [spread(row[k]) if row.get(k) else "-" for k in
                ("paired_over_alone_time", "paired_over_alone_speedup", "paired_over_python_speedup", "paired_speedup")]
        print(f"{row['cell']:<20} {cols[0]:<24} {cols[1]:<24} {cols[2]:<24} {cols[3]}")
    missed = [f"{cell} {name}" for cell, name, ok in verdicts if not ok]
    print(f"targets met: {sum(ok for *_, ok in verdicts)} of {len(verdicts)}" + (f"; missed: {', '.join(missed)}"
                                                                                  if missed else ""))
    document = {"allocator": args.allocator, "reps": [{k: ({"/".join(key): v for key, v in val.items()}
                                                           if isinstance(val, dict) and k in KINDS else val)
                                                       for k, val in rep.items()} for rep in reps],
                "rows": rows, "targets": [{"cell": c, "figure": n, "met": ok} for c, n, ok in verdicts]}
    with open(os.path.join(args.out, "validity.json"), "w") as f:
        json.dump(document, f, indent=1)
    return 0 if not missed else 1


if __name__ == "__main__":
    sys.exit(main())
