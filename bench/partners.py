#!/usr/bin/env python3
"""Does what a mode measures depend on *which* mode shares its worker? (issue "Valid numbers")

bench/validity.py compares a mode paired with every other mode against the same mode alone. On an
H200 (in two runs of the GPU kit) the transformer's FP16 and BF16 steps measured 8-10% slower paired
than alone while FP32 agreed, and the reports' host time per step was 6-30% higher paired in *every*
mode: it shows in the step time only where the step is bound by the host issuing it. This
benchmark names the partner that does it. For one workload and each AMP mode M it runs, in an
order that rotates every repetition:
  alone       `ampbench run --modes M`
  +fp32       `--modes fp32,M`: a partner whose steps are longer on the device than on the host (on
              a GPU the host waits through its blocks) and whose tensors are twice M's size;
  +O          `--modes M,O` for each other AMP mode O: a partner with the same tensor sizes and a
              host-bound step of its own;
  suite       the workload's default modes, as users run it.
Per arrangement and mode, over repetitions (median [min, max]) against alone in the same
repetition: the step time (the report's estimate over rounds, and over the rounds in the machine's
usual state: bench/benchkit/machine_state.py), on a GPU the host's time per step, and within each round the
first timed step (the one after the untimed step that follows a switch) against the later ones.

Usage (after scripts/build):
  .venv/bin/python bench/partners.py --out out/partners                      (CPU, ~8 minutes)
  .venv/bin/python bench/partners.py --out DIR --device cuda --preset large --reps 2 --time-cap 2
  .venv/bin/python bench/partners.py ... --round-steps 8       (every arrangement with 8 steps per round)
  .venv/bin/python bench/partners.py --from DIR                              (the same figures again)
Writes OUT/partners.json.
"""
import argparse
import json
import os
import statistics
import sys

from benchkit import machine_state
from benchkit.suite_runs import run_suite, spread
from benchkit.paths import DEFAULT_BINARY

# Figures given as they are, not against the mode alone.
UNITLESS = ("first_over_later", "steps_per_round")


def arrangements(modes):
    """{name: --modes value or None (the default modes)} for the AMP modes `modes`."""
    found = {f"alone-{m}": m for m in modes}
    found.update({f"fp32+{m}": f"fp32,{m}" for m in modes})
    found.update({f"{a}+{b}": f"{a},{b}" for i, a in enumerate(modes) for b in modes[i + 1:]})
    found["suite"] = None
    return found


def positions(step_round):
    """Each step's place in its round's block: 0 for the first timed step, 1 for the next..."""
    places, previous, place = [], None, 0
    for round_index in step_round:
        place = place + 1 if round_index == previous else 0
        places.append(place)
        previous = round_index
    return places


def cell_figures(cell, usual_probe_s):
    """A cell's step time (every round, usual state), host time per step, first step against later."""
    rounds = cell["rounds"]
    steps, host = cell["step_times_s"], cell.get("host_step_times_s") or []
    places = positions(rounds["step_round"])
    first = [s for s, p in zip(steps, places) if p == 0]
    later = [s for s, p in zip(steps, places) if p > 0]
    usual, _, _ = machine_state.usual_state_estimate(rounds, usual_probe_s)
    return {
        "step_s": rounds["step_time"]["value"],
        "usual_state_step_s": usual,
        "host_step_s": statistics.median(host) if host else None,
        "first_over_later": statistics.median(first) / statistics.median(later) if first and later else None,
        "steps_per_round": rounds.get("steps_per_round"),
    }


def measure(args, names):
    common = ["--workloads", args.workload, "--preset", args.preset, "--device", args.device, "--threads",
              str(args.threads), "--allocator", args.allocator, "--numerics-steps", "0", "--no-breakdown"]
    if args.time_cap is not None:
        common += ["--time-cap", str(args.time_cap)]
    if args.round_steps is not None:
        common += ["--round-steps", str(args.round_steps)]
    for rep in range(args.reps):
        order = names[rep % len(names):] + names[:rep % len(names)]
        for name in order:
            modes = arrangements(args.modes)[name]
            _, wall = run_suite(args.binary, os.path.join(args.out, f"rep{rep}-{name}"),
                                common + (["--modes", modes] if modes else []))
            print(f"rep {rep} {name}: {wall:.1f} s", file=sys.stderr)


def load(out, reps, names):
    """[{arrangement: report}] per repetition."""
    loaded = []
    for rep in range(reps):
        reports = {}
        for name in names:
            with open(os.path.join(out, f"rep{rep}-{name}", "report.json")) as f:
                reports[name] = json.load(f)
        loaded.append(reports)
    return loaded


def ratios(loaded, modes):
    """{(arrangement, mode, figure): [ratio to alone per repetition]}, the figures of alone itself
    as absolute values (figure + "_alone"), and the usual probe time they were judged against."""
    probes = [p for rep in loaded for r in rep.values() for c in r["cells"] if c.get("rounds")
              for p in c["rounds"]["probe_s"]]
    usual = machine_state.usual(probes)
    table = {}
    for rep in loaded:
        figures = {name: {c["mode"]: cell_figures(c, usual) for c in r["cells"] if c["status"] == "ok" and c.get("rounds")}
                   for name, r in rep.items()}
        for mode in modes:
            alone = figures[f"alone-{mode}"].get(mode)
            if alone is None:
                continue
            for name, cells in figures.items():
                if mode not in cells:
                    continue
                for figure, value in cells[mode].items():
                    if value is None:
                        continue
                    if name == f"alone-{mode}" or figure in UNITLESS:
                        table.setdefault((name, mode, figure), []).append(value)
                    elif alone[figure] is not None:
                        table.setdefault((name, mode, figure), []).append(value / alone[figure])
    return table, usual


def place_profile(loaded, modes, places=8):
    """{(arrangement, mode): [median step time at place 0, 1, ... of a round]}, pooled over repetitions:
    how long after a switch a step stays dearer (on an H200 the first step after one was)."""
    pooled = {}
    for rep in loaded:
        for name, report in rep.items():
            for cell in report["cells"]:
                if cell["status"] != "ok" or not cell.get("rounds") or cell["mode"] not in modes:
                    continue
                by_place = pooled.setdefault((name, cell["mode"]), [[] for _ in range(places)])
                for step, place in zip(cell["step_times_s"], positions(cell["rounds"]["step_round"])):
                    if place < places:
                        by_place[place].append(step)
    return {key: [statistics.median(steps) if steps else None for steps in by_place]
            for key, by_place in pooled.items()}


def print_place_profile(profile, names, modes):
    width = max(len([v for v in values if v is not None]) for values in profile.values())
    print("\nMedian step time (ms) by place in the round's block of the mode, pooled over repetitions "
          "(place 0: the first timed step after a switch):")
    print("| mode | arrangement | " + " | ".join(f"place {k}" for k in range(width)) + " |")
    print("|---|---|" + "---|" * width)
    for mode in modes:
        for name in names:
            values = profile.get((name, mode))
            if values:
                print(f"| {mode} | {name} | " + " | ".join("-" if v is None else f"{v * 1e3:.3f}"
                                                        for v in values[:width]) + " |")


def print_table(table, names, modes, reps):
    figures = ("step_s", "usual_state_step_s", "host_step_s", "first_over_later", "steps_per_round")
    print(f"Per mode and arrangement, over {reps} repetition(s): median [min, max]. Step and host times "
          "against the mode alone in the same repetition (alone itself in ms); first/later: the first "
          "timed step of a round over the later ones; steps/round: each mode's timed steps per round (1: every "
          "one is the first after a switch).")
    print("| mode | arrangement | step time | step, usual state | host per step | first/later | steps/round |")
    print("|---|---|---|---|---|---|---|")
    for mode in modes:
        for name in names:
            cells = [table.get((name, mode, f)) for f in figures]
            if not any(cells):
                continue
            shown = []
            for figure, values in zip(figures, cells):
                if values and name == f"alone-{mode}" and figure not in UNITLESS:
                    values = [v * 1e3 for v in values]
                    shown.append(spread(values) + " ms")
                else:
                    shown.append(spread(values or []))
            print(f"| {mode} | {name} | " + " | ".join(shown) + " |")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", help="where the runs and partners.json go")
    parser.add_argument("--from", dest="from_dir", help="an earlier --out: its figures again, nothing run")
    parser.add_argument("--workload", default="transformer")
    parser.add_argument("--modes", default="fp16,bf16", help="the AMP modes whose partners are varied")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--preset", default="default")
    parser.add_argument("--device", default="auto")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--allocator", default="glibc-fixed")
    parser.add_argument("--time-cap", type=float, help="passed to ampbench run (seconds per mode)")
    parser.add_argument("--round-steps", type=int,
                        help="passed to ampbench run: timed steps of each mode per round (default: sized by time). "
                             "On an H200 at a 2 s cap FP16 beside FP32 got 1 per round, every one the first after "
                             "a switch")
    parser.add_argument("--binary", default=str(DEFAULT_BINARY))
    args = parser.parse_args()
    if args.from_dir:
        with open(os.path.join(args.from_dir, "partners.json")) as f:
            saved = json.load(f)
        args.out, args.reps, args.modes, args.workload = args.from_dir, saved["reps"], saved["modes"], saved["workload"]
        args.round_steps = saved.get("round_steps")
    else:
        if not args.out:
            parser.error("--out or --from is needed")
        args.modes = args.modes.split(",")
        if "fp32" in args.modes or not args.modes:
            parser.error("--modes: the AMP modes to pair, without fp32 (it is always a partner)")
        if args.reps < 1:
            parser.error("--reps: at least 1")
        os.makedirs(args.out, exist_ok=True)
    names = list(arrangements(args.modes))
    if not args.from_dir:
        measure(args, names)
    loaded = load(args.out, args.reps, names)
    table, usual = ratios(loaded, args.modes)
    print(f"{args.workload}, usual probe {usual * 1e3:.3f} ms (rounds whose probe took at most "
          f"{machine_state.SLOW_MACHINE_FACTOR}x it are the usual state)")
    print_table(table, names, args.modes, args.reps)
    print_place_profile(place_profile(loaded, args.modes), names, args.modes)
    with open(os.path.join(args.out, "partners.json"), "w") as f:
        json.dump({"workload": args.workload, "reps": args.reps, "modes": args.modes, "usual_probe_s": usual,
                   "round_steps": args.round_steps,
                   "figures": [{"arrangement": n, "mode": m, "figure": fig, "values": v}
                               for (n, m, fig), v in sorted(table.items())]}, f, indent=1)


if __name__ == "__main__":
    main()
