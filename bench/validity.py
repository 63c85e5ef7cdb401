#!/usr/bin/env python3
"""Are ampbench's step times and speedups the ones a mode gets on its own? (issue "Valid numbers")

Per default-suite cell, under one allocator policy, four measurements of the same thing:
  paired  the suite as users run it: every mode of a workload interleaved in the same workers;
  alone   each mode in its own `ampbench run --modes MODE` (no other mode in its workers);
  bare    the plainest LibTorch loop (bench/native_loop/bare_loop_cell.cpp: the workload's model, data and
          optimizer, LibTorch's native autocast, GradScaler's ATen ops; nothing of ampbench's
          timing or amp), each mode in a process of its own;
  python  PyTorch's own loop (bench/benchkit/python_loop.py, the replicas of the tutorials' loop), each mode
          in a Python process of its own.
The loops outside ampbench run under the same policy (LD_PRELOAD or glibc's tunables with the
values ampbench's mallopt sets). The kinds run in an order that rotates every repetition, N
repetitions. Per cell and repetition: ampbench's step time is the report's estimate over rounds
(geometric mean over workers), a loop's the median step; speedups are FP32's step time over the
mode's within the same kind and repetition. Printed per cell: medians over repetitions with the
min-max spread of paired/alone and paired/bare (step time, speedup) and of paired/python (speedup),
against the targets (matched_state.TOLERANCES: within 5% of alone and of the bare loop, within 10%
of PyTorch's loop, which adds its own cost to every step). Beside them, with no target, the bare
loop's speedup over PyTorch's loop's: a miss against PyTorch's loop that the bare loop misses too,
by as much or more (ampbench agreeing with the bare loop, or between the two loops), is marked as
the Python loop's own cost per step (matched_state.python_loop_misses), in the targets' line and
as "bare_loop_too" in validity.json; it still counts as missed. Writes every figure to
OUT/validity.json.

Printed twice: over every round (the step times a report states), and over the rounds that ran in
the machine's usual state, the same estimator over the rounds whose probe took at most the
slow-machine factor times the benchmark's usual probe time (its 10th percentile over every round
of every report of the benchmark: bench/benchkit/machine_state.py). The second compares paired and alone in
the same machine state, which the first cannot when the host spends minutes in its slower state.
The loops time their steps in rounds, as ampbench's blocks: before each round the probe (the bare
loop ampbench's own, PyTorch's loop the same MLP in Python: bench/python_loop_cell.py), then one
untimed step; they keep, by the same rule against their own usual probe time, the steps of the
usual state.

A third table pools every repetition's rounds and compares paired and alone at the same machine
state, the rounds whose probe took at most 1.1x the usual probe, with bootstrap intervals
(bench/benchkit/matched_state.py): whether taking turns changes what a mode measures, apart from how much
of each run the host spent in its slower states. Exit 1 when a target is missed in any table.

Usage (after scripts/build; about 2.5 minutes per repetition on a quiet 2-core CPU):
  .venv/bin/python bench/validity.py --reps 5 --allocator glibc-fixed --out out/validity
  .venv/bin/python bench/validity.py --from out/validity   # the same figures again, from its files
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

from benchkit import machine_state
from benchkit import matched_state
from benchkit.suite_runs import run_suite, spread
from benchkit.paths import DEFAULT_BINARY, ROOT

MODES = ("fp32", "fp16", "bf16")
KINDS = ("paired", "alone", "bare", "python")
LOOPS = ("bare", "python")  # the kinds outside ampbench, each mode in a process of its own
LOOP_STEPS = {"simplenet": 100, "simplecnn": 20, "transformer": 20}  # timed steps per loop cell
LOOP_ROUNDS = 5  # the loops time their steps in rounds, a probe and an untimed step before each
LOOP_WARMUP = 3
# glibc-fixed's thresholds as glibc's tunables, so the loops run under the same policy
# (harness/src/worker/worker_allocator.cpp sets them with mallopt).
GLIBC_FIXED = {"MALLOC_MMAP_THRESHOLD_": "1073741824", "MALLOC_TRIM_THRESHOLD_": "2147483647"}
PRELOADS = {"jemalloc": "libjemalloc.so.2", "tcmalloc": "libtcmalloc_minimal.so.4"}


def policy_environment(policy, report):
    """This process's environment for the loops, with the policy's allocator and nothing else's."""
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


def kind_reports(out, rep, kind):
    """The reports of one repetition's ampbench kind, as written under OUT."""
    folders = [f"rep{rep}-paired"] if kind == "paired" else [f"rep{rep}-alone-{mode}" for mode in MODES]
    reports = []
    for folder in folders:
        with open(os.path.join(out, folder, "report.json")) as f:
            reports.append(json.load(f))
    return reports


def loop_usual_state(reps, loop):
    """Per repetition, {(workload, mode): median step of the loop ("bare", "python") over the steps
    whose probe took at most the factor times the usual probe of every step of that loop}; None
    without probes (a benchmark from before they were kept, or without the loop), and the share of
    steps left out."""
    samples = f"{loop}_samples"
    if not all(samples in rep for rep in reps if loop in rep):
        return None, None
    cells = [cell for rep in reps for cell in rep.get(samples, {}).values()]
    if not cells:
        return None, None
    usual = machine_state.usual(p for cell in cells for p in cell["probe_s"])
    figures, kept, total = [], 0, 0
    for rep in reps:
        times = {}
        for key, cell in rep.get(samples, {}).items():
            steps = [t for t, p in zip(cell["step_s"], cell["probe_s"]) if p <= machine_state.SLOW_MACHINE_FACTOR * usual]
            kept, total = kept + len(steps), total + len(cell["step_s"])
            if len(steps) >= 2:
                times[tuple(key.split("/"))] = statistics.median(steps)
        figures.append(times)
    return figures, 1.0 - kept / total


def usual_state_figures(loaded):
    """Per repetition, {"paired"/"alone": {(workload, mode): usual-state step time}}, and the share of
    rounds left out per kind, from each repetition's reports ({kind: [reports]}). Only the cells of
    each alone run's own mode count, as in run_kind."""
    cells = [(kind, c) for rep in loaded for kind, reports in rep.items() for r in reports for c in r["cells"]
             if c["status"] == "ok" and c.get("rounds")]
    if len({c["rounds"]["probe"] for _, c in cells}) != 1:
        sys.exit("validity.py: the reports ran different machine probes; no one usual probe time describes them")
    usual = machine_state.usual(p for _, c in cells for p in c["rounds"]["probe_s"])
    for _, c in cells:  # the estimator is the report's own: over every round it gives the stated figure
        rounds = c["rounds"]
        mine = machine_state.round_estimate(rounds["step_time_s"], rounds.get("round_replicate") or [0] * len(rounds["step_time_s"]))
        if abs(mine / rounds["step_time"]["value"] - 1.0) > 1e-9:
            sys.exit(f"validity.py: {c['workload']}/{c['mode']}: the estimate over every round is {mine}, "
                     f"the report states {rounds['step_time']['value']}")
    figures, kept = [], {"paired": [0, 0], "alone": [0, 0]}
    for rep in loaded:
        times = {}
        for kind, reports in rep.items():
            times[kind] = {}
            for mode_index, report in enumerate(reports):
                for c in report["cells"]:
                    if c["status"] != "ok" or not c.get("rounds") or (kind == "alone" and c["mode"] != MODES[mode_index]):
                        continue
                    estimate, n_kept, n_all = machine_state.usual_state_estimate(c["rounds"], usual)
                    kept[kind][0] += n_kept
                    kept[kind][1] += n_all
                    if estimate is not None:
                        times[kind][(c["workload"], c["mode"])] = estimate
        figures.append(times)
    return figures, usual, {kind: 1.0 - k / n for kind, (k, n) in kept.items() if n}


def loop_cell(loop, workload, mode, args, env, device):
    """One mode in a loop outside ampbench, in a process of its own, on the device ampbench's paired
    run resolved (--device auto included): {"step_s": [...], "probe_s": [...]}."""
    if loop == "bare" and device != "cpu":
        sys.exit(f"validity.py: the bare LibTorch loop runs on the CPU only, and ampbench ran on {device}: "
                 "give --no-bare")
    program = ([os.path.join(os.path.dirname(args.binary), "bare_loop_cell")] if loop == "bare" else
               [sys.executable, os.path.join(ROOT, "bench", "python_loop_cell.py")])
    command = [*program, workload, mode, args.preset, "--steps", str(LOOP_STEPS[workload]),
               "--warmup", str(LOOP_WARMUP), "--threads", str(args.threads),
               "--round-steps", str(LOOP_STEPS[workload] // LOOP_ROUNDS)]
    if loop == "python":
        command += ["--device", device]
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"validity.py: the {loop} loop failed for {workload}/{mode}: {done.stderr[-1500:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def run_kind(kind, args, out, common, paired_report):
    """(step times per cell, wall seconds, the paired report or None, a loop's samples or None)."""
    if kind == "paired":
        report, wall = run_suite(args.binary, out, common)
        return ampbench_step_times(report), wall, report, None
    start = time.monotonic()
    times, samples = {}, None
    if kind == "alone":
        for mode in MODES:
            report, _ = run_suite(args.binary, f"{out}-{mode}", [*common, "--modes", mode])
            times.update({key: t for key, t in ampbench_step_times(report).items() if key[1] == mode})
    else:
        env, samples = policy_environment(args.allocator, paired_report), {}
        for workload in args.workloads:
            for mode in MODES:
                cell = loop_cell(kind, workload, mode, args, env, paired_report["config"]["device"])
                times[(workload, mode)] = statistics.median(cell["step_s"])
                samples[f"{workload}/{mode}"] = cell
    return times, time.monotonic() - start, None, samples


def speedups(times):
    return {(w, m): times[(w, "fp32")] / t for (w, m), t in times.items()
            if m != "fp32" and (w, "fp32") in times}


def summarise(reps, workloads):
    """Per cell, over repetitions: the paired step time over alone's and the bare loop's, and the
    paired speedup over alone's, the bare loop's and Python's, and the bare loop's speedup over
    Python's, each as median [min, max], with the targets of matched_state.TOLERANCES. Python's step
    times are not compared: the Python loop adds its own cost to every step."""
    rows, verdicts = [], []
    for workload in workloads:
        for mode in MODES:
            key = (workload, mode)
            row = {"cell": f"{workload}/{mode}"}
            for other in ("alone", "bare"):
                row[f"paired_over_{other}_time"] = [r["paired"][key] / r[other][key] for r in reps
                                                    if other in r and key in r["paired"] and key in r[other]]
            if mode != "fp32":
                sp = [{kind: speedups(r[kind]) for kind in KINDS if kind in r} for r in reps]
                ratios = lambda kind, other: [s[kind][key] / s[other][key] for s in sp
                                              if kind in s and other in s and key in s[kind] and key in s[other]]
                for other in ("alone", "bare", "python"):
                    row[f"paired_over_{other}_speedup"] = ratios("paired", other)
                row[matched_state.BARE_OVER_PYTHON] = ratios("bare", "python")
                row["paired_speedup"] = [s["paired"][key] for s in sp if key in s["paired"]]
            rows.append(row)
            verdicts.extend((row["cell"], name, abs(statistics.median(row[name]) - 1.0) <= tolerance)
                            for name, tolerance in matched_state.TOLERANCES.items() if row.get(name))
    return rows, verdicts


def print_table(title, rows, verdicts, python_loops):
    """One table of per-cell figures and its targets; returns the targets missed."""
    names = (*matched_state.TOLERANCES, matched_state.BARE_OVER_PYTHON, "paired_speedup")
    print(title)
    print(f"{'cell':<20} " + " ".join(f"{matched_state.figure_title(name):<24}" for name in names).rstrip())
    for row in rows:
        print(f"{row['cell']:<20} " + " ".join(f"{spread(row[name]) if row.get(name) else '-':<24}"
                                               for name in names).rstrip())
    return print_targets(verdicts, python_loops)


def print_targets(verdicts, python_loops):
    """The line of targets met and missed, a miss against PyTorch's loop marked when it is the
    Python loop's own (`python_loops`: matched_state.python_loop_misses); returns those missed."""
    missed = [f"{cell} {name}" + (" (the bare LibTorch loop's too: Python's own cost per step)"
                                  if is_python_loops(cell, name, python_loops) else "")
              for cell, name, ok in verdicts if not ok]
    print(f"targets met: {sum(ok for *_, ok in verdicts)} of {len(verdicts)}" + (f"; missed: {', '.join(missed)}"
                                                                                  if missed else ""))
    return missed


def targets_json(verdicts, python_loops):
    """The targets as validity.json keeps them; a miss against PyTorch's loop that is the Python
    loop's own (print_targets) says so."""
    return [{"cell": c, "figure": n, "met": ok,
             **({"bare_loop_too": True} if not ok and is_python_loops(c, n, python_loops) else {})}
            for c, n, ok in verdicts]


def is_python_loops(cell, name, python_loops):
    """Whether a missed target is one against PyTorch's loop that the bare loop misses too."""
    return name == "paired_over_python_speedup" and cell in python_loops


def measure(args):
    """Runs the repetitions; returns their figures (as validity.json keeps them, with tuple keys)."""
    os.makedirs(args.out, exist_ok=True)
    common = ["--allocator", args.allocator, "--threads", str(args.threads), "--preset", args.preset, "--device", args.device,
              "--workloads", ",".join(args.workloads), "--replicates", "3", "--numerics-steps", "0",
              "--no-breakdown"] + (["--time-cap", str(args.time_cap)] if args.time_cap is not None else [])
    kinds = [k for k in KINDS if not ((args.no_python and k == "python") or (args.no_bare and k == "bare"))]
    reps = []
    for rep in range(args.reps):
        order = kinds[rep % len(kinds):] + kinds[:rep % len(kinds)]
        figures, paired_report = {"order": order, "wall_s": {}}, None
        for kind in order:
            if kind in LOOPS and paired_report is None:  # needs the policy's library as ampbench found it
                paired_report = json.load(open(os.path.join(args.out, "rep0-paired", "report.json")))
            times, wall, report, samples = run_kind(kind, args, os.path.join(args.out, f"rep{rep}-{kind}"), common,
                                                    paired_report)
            paired_report = report or paired_report
            figures[kind], figures["wall_s"][kind] = times, wall
            if samples is not None:
                figures[f"{kind}_samples"] = samples
            print(f"rep {rep + 1}/{args.reps} {kind}: {wall:.0f} s", file=sys.stderr, flush=True)
        reps.append(figures)
    return reps


def measured_before(out):
    """(allocator, repetitions, workloads) of an earlier benchmark, from OUT/validity.json."""
    path = os.path.join(out, "validity.json")
    if not os.path.isfile(path):
        sys.exit(f"validity.py: --from: {path} does not exist")
    with open(path) as f:
        document = json.load(f)
    reps = [{k: ({tuple(key.split("/")): v for key, v in val.items()} if k in KINDS else val) for k, val in rep.items()}
            for rep in document["reps"]]
    workloads = list(dict.fromkeys(w for w, _ in reps[0]["paired"]))
    return document["allocator"], reps, workloads


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--allocator", default="glibc-fixed")
    parser.add_argument("--out", help="where the runs and validity.json go")
    parser.add_argument("--from", dest="from_dir", help="an earlier --out: its figures again, nothing run")
    parser.add_argument("--binary", default=str(DEFAULT_BINARY))
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--device", default="auto", help="passed to ampbench run; PyTorch's loop trains on the device "
                        "that run resolved; the bare LibTorch loop runs on the CPU only (give --no-bare on a GPU)")
    parser.add_argument("--preset", default="default")
    parser.add_argument("--time-cap", type=float, help="passed to ampbench run (seconds per mode); its own default when absent")
    parser.add_argument("--workloads", default="simplenet,simplecnn,transformer")
    parser.add_argument("--no-python", action="store_true", help="without PyTorch's loop")
    parser.add_argument("--no-bare", action="store_true", help="without the bare LibTorch loop (it runs on the CPU only)")
    args = parser.parse_args()
    if bool(args.out) == bool(args.from_dir):
        parser.error("give --out (measure) or --from (an earlier --out), one of them")
    if args.from_dir:
        args.out = args.from_dir
        args.allocator, reps, args.workloads = measured_before(args.from_dir)
    else:
        args.workloads = args.workloads.split(",")
        reps = measure(args)
    rows, verdicts = summarise(reps, args.workloads)
    python_loops = matched_state.python_loop_misses(rows, statistics.median)
    missed = print_table(f"allocator {args.allocator}, {len(reps)} repetitions, median [min, max] over them; "
                         "every round", rows, verdicts, python_loops)
    loaded = [{kind: kind_reports(args.out, rep, kind) for kind in ("paired", "alone")} for rep in range(len(reps))]
    usual, usual_probe, left_out = usual_state_figures(loaded)
    usual_reps = [{**rep, "paired": u["paired"], "alone": u["alone"]} for rep, u in zip(reps, usual)]
    loop_notes = ""
    for loop in LOOPS:
        if not any(loop in rep for rep in reps):
            continue
        loop_usual, loop_left_out = loop_usual_state(reps, loop)
        if loop_usual is None:
            loop_notes += f"; {loop} loop: every step, no probe was kept"
            continue
        usual_reps = [{**rep, loop: figures} for rep, figures in zip(usual_reps, loop_usual)]
        left_out[loop] = loop_left_out
        loop_notes += f", {loop} {loop_left_out:.0%} of steps"
    usual_rows, usual_verdicts = summarise(usual_reps, args.workloads)
    usual_python_loops = matched_state.python_loop_misses(usual_rows, statistics.median)
    print()
    usual_missed = print_table(
        f"usual state: rounds whose probe took at most {machine_state.SLOW_MACHINE_FACTOR}x {usual_probe * 1e6:.1f} us "
        f"(left out: paired {left_out['paired']:.0%}, alone {left_out['alone']:.0%} of rounds{loop_notes})",
        usual_rows, usual_verdicts, usual_python_loops)
    matched_rounds, matched_usual = matched_state.pooled_rounds(loaded, MODES)
    matched_rows, matched_verdicts = matched_state.matched_rows(
        matched_rounds, {loop: matched_state.pooled_loop_steps(reps, loop) for loop in LOOPS}, args.workloads, MODES)
    print()
    matched_state.print_matched(matched_rows, matched_usual)
    matched_python_loops = matched_state.python_loop_misses(matched_rows, lambda figure: figure.value)
    matched_missed = print_targets(matched_verdicts, matched_python_loops)
    as_json = lambda figures: [{k: ({"/".join(key): v for key, v in val.items()} if isinstance(val, dict) and k in KINDS
                                    else val) for k, val in rep.items()} for rep in figures]
    document = {"allocator": args.allocator, "reps": as_json(reps), "rows": rows,
                "targets": targets_json(verdicts, python_loops),
                "usual_state": {"usual_probe_s": usual_probe, "factor": machine_state.SLOW_MACHINE_FACTOR,
                                "left_out": left_out,
                                "reps": as_json([{k: v for k, v in rep.items() if not k.endswith("_samples")} for rep in usual_reps]), "rows": usual_rows,
                                "targets": targets_json(usual_verdicts, usual_python_loops)},
                "matched_state": {"usual_probe_s": matched_usual, "band": matched_state.MATCHED_BAND,
                                  "rows": matched_state.rows_as_json(matched_rows),
                                  "targets": targets_json(matched_verdicts, matched_python_loops)}}
    if not args.from_dir:  # --from re-derives what its files say and leaves them as they are
        with open(os.path.join(args.out, "validity.json"), "w") as f:
            json.dump(document, f, indent=1)
    return 0 if not (missed or usual_missed or matched_missed) else 1


if __name__ == "__main__":
    sys.exit(main())
