#!/usr/bin/env python3
"""What the performance history (issue #33) does with real runs of identical code:

- false alarms: N default-suite runs added to a history in order must leave no change point in
  any series, and `history check` of M further runs must pass every one (exit 0; exit 4, "needs
  confirmation", is a false alarm of one run, which the two-run protocol answers with the next
  run as --rerun: that pair must pass);
- detection: the same N runs with every step time of runs K.. multiplied by 1+S (the machine
  probe untouched, as repeatability.py's synthetic slowdown) must give a change point at run K+1
  (1-based run ids) +- 1 in every step-time series and in no other series, and `history check` of
  a slowed further run must fail (exit 4 alone, 1 with a slowed rerun);
- the gate run by run: each stored identical run from the 11th on judged against the runs before
  it, and each slowed run against the runs before the change, alone and with the next as --rerun
  (a false-alarm and a detection rate per run, where the further runs give one verdict each);
- cost: `history add` and `history check` wall time, and the store's size per run, with a
  history of 10,000 runs (the N real runs, then copies of their exported lines with other
  digests and values scattered by 2%, imported), in an SQLite file and (--postgres) on a
  PostgreSQL server started for it.

Usage (from the repository root, after scripts/build):
  bench/history_benchmark.py --out out/hist            (runs the N + M suites: about 40 minutes)
  bench/history_benchmark.py --out out/hist --reuse    (the runs already in OUT/runI)
  bench/history_benchmark.py --out out/hist --reuse --postgres   (the costs on a PostgreSQL server too)
Everything after `--` goes to `ampbench run`. Prints a summary and writes OUT/summary.json.
"""
import argparse
import collections
import contextlib
import json
import math
import os
import random
import statistics
import subprocess
import sys
import time

from benchkit.suite_runs import run_suite, slowed
from benchkit.paths import DEFAULT_BINARY, ROOT

STEP_TIME_FIGURES = ("step_time_per_probe", "step_time_s")


def ampbench(binary, *args):
    """(exit code, stdout, stderr, wall seconds) of one ampbench command."""
    start = time.monotonic()
    result = subprocess.run([binary, *args], capture_output=True, text=True)
    return result.returncode, result.stdout, result.stderr, time.monotonic() - start


def must(binary, *args):
    code, out, err, _ = ampbench(binary, *args)
    if code != 0:
        sys.exit(f"ampbench {' '.join(args)} exited {code}: {err[-2000:]}")
    return out


def change_points(binary, db):
    """Every change point of every series: (cell, figure, run id, magnitude, attribution), the last
    empty unless the history names the change the machine's (a raw step-time change the probe moved with)."""
    shown = json.loads(must(binary, "history", "show", "--db", db, "--format", "json", "--figure",
                            "step_time_per_probe", "--figure", "step_time_s", "--figure", "speedup",
                            "--figure", "peak_tensor_bytes", "--figure", "divergence_ratio"))
    found = []
    for testbed in shown["testbeds"]:
        for series in testbed["series"]:
            for change in series["change_points"]:
                found.append((series["cell"], series["figure"], change["run"], change["magnitude"],
                              change["attribution"]))
    return found, shown


def remove_db(path):
    """An SQLite history gone, with its write-ahead log, so that the runs are added afresh."""
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)


def write_json(path, report):
    with open(path, "w") as f:
        json.dump(report, f)
    return path


def t_upper_tail(t, degrees):
    """P(T > t) for Student's t, through the normal with the usual correction for its degrees of
    freedom (Abramowitz and Stegun 26.7.8; within 0.01 from 10 degrees of freedom on)."""
    z = t * (1.0 - 1.0 / (4.0 * degrees)) / math.sqrt(1.0 + t * t / (2.0 * degrees))
    return 0.5 * math.erfc(z / math.sqrt(2.0))


def resolutions(verdicts):
    """Per cell of `history check --format json`: (verdict, history runs, the step-time change the
    check saw, the change it flags beyond, the change it flags 9 times in 10), for the cells whose
    step time it judged."""
    return {cell["cell"]: (cell["verdict"], cell["history_runs"], cell["step_time_change"], cell["flags_beyond"],
                           cell["caught_from"])
            for cell in json.loads(verdicts)["cells"] if cell["step_time_change"] is not None}


def flag_probability(cell, effect):
    """The chance a run of this cell with a true step-time change `effect` is flagged, from the
    resolution the check reported: its spread is what separates the change flagged 9 times in 10
    from the change flagged beyond (t(0.9) spreads)."""
    degrees, spread = spread_of(cell)
    return t_upper_tail((math.log1p(cell[3]) - math.log1p(effect)) / spread, degrees)


def spread_of(cell):
    """(degrees of freedom, the prediction's standard deviation on logs) behind a reported resolution."""
    _, runs, _, beyond, caught = cell
    degrees = max(runs - 2, 2)
    z90 = 1.2815516  # the normal's 0.9 quantile, corrected to t's below (Cornish-Fisher, first term)
    t90 = z90 + (z90 ** 3 + z90) / (4.0 * degrees)
    return degrees, (math.log1p(caught) - math.log1p(beyond)) / t90


def check_with_protocol(binary, db, current, rerun, *extra):
    """`history check` of one run; on exit 4, again with the next run as --rerun. Keeps each cell's
    resolution (see resolutions)."""
    code, out, _, wall = ampbench(binary, "history", "check", current, "--db", db, "--format", "json", *extra)
    entry = {"exit": code, "wall_s": wall, "cells": resolutions(out)}
    if code == 4:
        entry["rerun_exit"], entry["rerun_output"] = ampbench(binary, "history", "check", current, "--rerun", rerun,
                                                              "--db", db, *extra)[:2]
    return entry


def rolling_gate(binary, db, paths, slow_paths, runs, at, slowdown, first=10):
    """The gate as CI meets it, run by run: each stored identical run from `first` on judged against
    the runs before it (--before-run; run ids are 1-based in the order added), with the next run as
    its rerun; and each slowed run judged against the runs before the change, with the next slowed
    run as its rerun. More checks than the further runs alone, so a false-alarm rate and a detection
    rate per run, not one verdict."""
    identical = {k + 1: check_with_protocol(binary, db, paths[k], paths[k + 1], "--before-run", str(k + 1))
                 for k in range(first, runs)}
    slowed_checks = {k + 1: check_with_protocol(binary, db, slow_paths[k], slow_paths[k + 1], "--before-run",
                                                str(at + 1))
                     for k in range(at, len(slow_paths) - 1)}
    summary = {}
    for name, by_run, effect in (("identical", identical, 0.0), ("slowed", slowed_checks, slowdown)):
        checks = list(by_run.values())
        cells = [(label, cell) for c in checks for label, cell in c["cells"].items()]
        # The host's level under the judged runs, per cell: the mean change they show less the
        # known one (the unslowed runs drift too, which no prediction from the history can know).
        shown = collections.defaultdict(list)
        for label, cell in cells:
            shown[label].append(math.log1p(cell[2]) - math.log1p(effect))
        level = {label: statistics.mean(changes) for label, changes in shown.items()}
        summary[name] = {"checks": len(checks), "flagged_alone": sum(c["exit"] != 0 for c in checks),
                         "failed_with_rerun": sum(c.get("rerun_exit") == 1 for c in checks),
                         # Is the resolution the check reports what it catches? Cells flagged
                         # against the count its spreads predict for the known change, and for the
                         # known change on the level the runs' host was at.
                         "cells_judged": len(cells),
                         "cells_flagged": sum(cell[0] == "needs confirmation" for _, cell in cells),
                         "cells_flagged_predicted": sum(flag_probability(cell, effect) for _, cell in cells),
                         "cells_flagged_predicted_at_level": sum(
                             flag_probability(cell, math.expm1(math.log1p(effect) + level[label]))
                             for label, cell in cells),
                         "host_level": {label: math.expm1(value) for label, value in level.items()},
                         # The changes the checks saw, less the known change and the host's level,
                         # in units of the spread each check stated: about 1 if that spread is right
                         # (t's standard deviation is a little over 1), under 1 if the gate is wider
                         # than the runs vary.
                         "changes_in_spreads_sd": statistics.stdev(
                             (math.log1p(cell[2]) - math.log1p(effect) - level[label]) / spread_of(cell)[1]
                             for label, cell in cells) if len(cells) > 1 else None,
                         "flags_beyond": sorted(cell[3] for _, cell in cells),
                         # Which run flagged which cell (run ids 1-based), the change it saw, where the
                         # check put its line, and what the rerun said of the whole run.
                         "flagged": [{"run": run, "cell": label, "change": cell[2], "flags_beyond": cell[3],
                                      "rerun_exit": check.get("rerun_exit")}
                                     for run, check in by_run.items() for label, cell in check["cells"].items()
                                     if cell[0] == "needs confirmation"]}
    return summary


def big_history(binary, source_db, db, total, path):
    """A store of `total` runs: the source's runs, then scattered copies of them."""
    exported = must(binary, "history", "export", "--db", source_db).splitlines()
    lines = []
    rng = random.Random(1)
    for i in range(total):
        run = json.loads(exported[i % len(exported)])
        run["digest"] = f"copy-{i:08d}"
        for cell in run["cells"]:
            for name, (value, low, high, draws) in cell["figures"].items():
                # The figure and its interval move together; the draws behind them stay a count.
                scale = 1.0 + rng.gauss(0.0, 0.02)
                cell["figures"][name] = [value * scale, low * scale, high * scale, draws]
        lines.append(json.dumps(run))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    start = time.monotonic()
    must(binary, "history", "import", path, "--db", db)
    return time.monotonic() - start


def store_cost(args, identical_db, current, db, size):
    """`history add` and `history check` wall time with args.big + 1 runs in `db`, and its bytes per run."""
    empty = size()
    import_s = big_history(args.binary, identical_db, db, args.big, os.path.join(args.out, "big.jsonl"))
    check_code, _, _, check_s = ampbench(args.binary, "history", "check", current, "--db", db)
    add_code, _, _, add_s = ampbench(args.binary, "history", "add", current, "--db", db)
    return {"runs_in_store": args.big + 1, "import_s": import_s, "check_s": check_s, "check_exit": check_code,
            "add_s": add_s, "add_exit": add_code, "bytes_per_run": (size() - empty) / (args.big + 1)}


@contextlib.contextmanager
def postgres_server(out):
    """A private server (tests/support/postgres-test-server: Debian's, Unix socket only, fsync off)
    with an empty database "history": its URL, and a function that gives the database's size."""
    server = os.path.join(ROOT, "tests/support/postgres-test-server")
    state = os.path.join(out, "postgres.state")
    subprocess.run([server, "start", state], check=True, capture_output=True)
    try:
        with open(state) as f:
            folder = f.read().strip()

        def psql(database, sql):
            return subprocess.run(["psql", f"postgresql://ampbench@/{database}?host={folder}", "-Atc", sql],
                                  check=True, capture_output=True, text=True).stdout.strip()

        psql("postgres", "CREATE DATABASE history")
        yield (f"postgresql://ampbench@/history?host={folder}",
               lambda: int(psql("history", "SELECT pg_database_size(current_database())")))
    finally:
        subprocess.run([server, "stop", state], capture_output=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True)
    parser.add_argument("--runs", type=int, default=30, help="runs in the history (N)")
    parser.add_argument("--further", type=int, default=10, help="runs checked against it (M)")
    parser.add_argument("--slowdown", type=float, default=0.08, help="the synthetic change S")
    parser.add_argument("--at", type=int, default=20, help="the first slowed run K (0-based)")
    parser.add_argument("--big", type=int, default=10000,
                        help="runs in the store the costs are timed with (0: the costs are not timed)")
    parser.add_argument("--reuse", action="store_true", help="use the runs already in OUT/runI")
    parser.add_argument("--postgres", action="store_true",
                        help="time the big store on a PostgreSQL server too (Debian's, started for it)")
    parser.add_argument("--binary", default=str(DEFAULT_BINARY))
    parser.add_argument("extra", nargs="*", help="arguments for `ampbench run` (after --)")
    args = parser.parse_args()

    total = args.runs + args.further + 1  # one more: the rerun of the last further run
    paths, walls = [], []
    for i in range(total):
        out = os.path.join(args.out, f"run{i}")
        if not args.reuse:
            _, wall = run_suite(args.binary, out, args.extra)
            walls.append(wall)
            print(f"run {i}: {wall:.1f} s", file=sys.stderr)
        paths.append(os.path.join(out, "report.json"))
    reports = []
    for path in paths:
        with open(path) as f:
            reports.append(json.load(f))

    summary = {"runs": args.runs, "further": args.further, "run_walls_s": walls}
    # False alarms: identical code.
    identical_db = os.path.join(args.out, "identical.sqlite")
    remove_db(identical_db)
    must(args.binary, "history", "add", "--db", identical_db, *paths[:args.runs])
    found, shown = change_points(args.binary, identical_db)
    checks = [check_with_protocol(args.binary, identical_db, paths[args.runs + i], paths[args.runs + i + 1])
              for i in range(args.further)]
    summary["identical"] = {
        "change_points": found,
        "machines": sum(bool(c[4]) for c in found),
        "series": sum(len(t["series"]) for t in shown["testbeds"]),
        "checks": checks,
        "passed_alone": sum(c["exit"] == 0 for c in checks),
        "passed_with_protocol": sum(c["exit"] == 0 or c.get("rerun_exit") == 0 for c in checks),
        # Run id -> how many step-time series left it out: the host spent it in another state.
        "other_host_state": dict(collections.Counter(
            run["run"] for t in shown["testbeds"] for series in t["series"] for run in series["runs"]
            if run.get("other_host_state"))),
    }

    # Detection: a synthetic slowdown from run K on.
    slow_dir = os.path.join(args.out, "slowed")
    os.makedirs(slow_dir, exist_ok=True)
    slow_paths = [paths[i] if i < args.at else
                  write_json(os.path.join(slow_dir, f"run{i}.json"), slowed(reports[i], 1.0 + args.slowdown))
                  for i in range(args.runs)]
    slow_db = os.path.join(args.out, "slowed.sqlite")
    remove_db(slow_db)
    must(args.binary, "history", "add", "--db", slow_db, *slow_paths)
    found_slow, shown_slow = change_points(args.binary, slow_db)
    step_series = [(t["name"], s["cell"]) for t in shown_slow["testbeds"] for s in t["series"]
                   if s["figure"] in STEP_TIME_FIGURES]
    expected = args.at + 1
    hits = [c for c in found_slow if c[1] in STEP_TIME_FIGURES and abs(c[2] - expected) <= 1]
    elsewhere = [c for c in found_slow if c not in hits]
    # A run that was not stored: the last further run, slowed, with the rerun slowed too.
    slow_current = write_json(os.path.join(slow_dir, "current.json"),
                              slowed(reports[args.runs + args.further - 1], 1.0 + args.slowdown))
    slow_rerun = write_json(os.path.join(slow_dir, "rerun.json"),
                            slowed(reports[args.runs + args.further], 1.0 + args.slowdown))
    # Against the history before the change: the identical one.
    alone = ampbench(args.binary, "history", "check", slow_current, "--db", identical_db)
    both = ampbench(args.binary, "history", "check", slow_current, "--rerun", slow_rerun, "--db", identical_db)
    # A series without a hit, with the step its runs actually show: the unslowed runs drift too, so
    # the synthetic step adds to whatever the machine did between runs K.. and the ones before.
    hit_series = {(c[0], c[1]) for c in hits}
    missed = []
    for testbed in shown_slow["testbeds"]:
        for series in testbed["series"]:
            if series["figure"] not in STEP_TIME_FIGURES or (series["cell"], series["figure"]) in hit_series:
                continue
            values = [run["value"] for run in series["runs"]]
            before, after = values[:args.at], values[args.at:]
            missed.append({"cell": series["cell"], "figure": series["figure"],
                           "effective_step": statistics.mean(after) / statistics.mean(before) - 1.0,
                           "spread_before": statistics.stdev(before) / statistics.mean(before)})
    # What the history of the runs before the change says its search finds within 10 runs, per
    # step-time series (`history show`'s "finds a step of"): the +8% should be found 9 times in 10
    # where it said 8% or less, and less often where it said more.
    before_db = os.path.join(args.out, "before.sqlite")
    remove_db(before_db)
    must(args.binary, "history", "add", "--db", before_db, *paths[:args.at])
    stated = {(series["cell"], series["figure"]): series["detectable_change"]
              for testbed in change_points(args.binary, before_db)[1]["testbeds"] for series in testbed["series"]
              if series["figure"] in STEP_TIME_FIGURES}
    resolvable = {key for key, step in stated.items() if step is not None and step <= args.slowdown + 1e-9}
    # The last stored run's rerun is the first further one; the last slowed run's, the slowed current.
    summary["rolling"] = rolling_gate(args.binary, identical_db, paths, slow_paths + [slow_current], args.runs,
                                      args.at, args.slowdown)
    summary["slowed"] = {
        "step_time_series": len(step_series),
        "missed": missed,
        "found_at_expected_run": len(hits),
        "series_with_a_hit": len(hit_series),
        "stated_detectable": {f"{cell} {figure}": step for (cell, figure), step in sorted(stated.items())},
        "stated_resolvable": len(resolvable),
        "stated_resolvable_found": len(resolvable & hit_series),
        "stated_unresolvable_found": len(hit_series - resolvable),
        "elsewhere": elsewhere,
        "check_alone_exit": alone[0],
        "check_with_rerun_exit": both[0],
        "check_with_rerun_output": both[1],
    }

    # Cost with a big store: an SQLite file, and (--postgres) a PostgreSQL server.
    big_db = os.path.join(args.out, "big.sqlite")
    remove_db(big_db)

    def sqlite_size():
        if not os.path.exists(big_db):
            return 0
        subprocess.run(["sqlite3", big_db, "PRAGMA wal_checkpoint(TRUNCATE);"], capture_output=True)
        return os.path.getsize(big_db)

    if args.big > 0:
        summary["cost"] = store_cost(args, identical_db, paths[args.runs], big_db, sqlite_size)
    if args.big > 0 and args.postgres:
        with postgres_server(args.out) as (url, size):
            summary["cost_postgresql"] = store_cost(args, identical_db, paths[args.runs], url, size)

    with open(os.path.join(args.out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    ident, slow = summary["identical"], summary["slowed"]
    print(f"identical code, {args.runs} runs: {len(ident['change_points'])} change points in {ident['series']} "
          f"series (target 0), {ident['machines']} of them named the machine's; history check of {args.further} further runs: {ident['passed_alone']} passed alone, "
          f"{ident['passed_with_protocol']} with the two-run protocol (target {args.further})")
    print(f"+{args.slowdown:.0%} from run {expected}: change points at {expected} +- 1 in {slow['series_with_a_hit']} "
          f"of {slow['step_time_series']} step-time series, {len(slow['elsewhere'])} elsewhere "
          f"({sum(bool(c[4]) for c in slow['elsewhere'])} named the machine's; target: all, 0); "
          f"history check of a slowed run: exit {slow['check_alone_exit']} alone (4), "
          f"{slow['check_with_rerun_exit']} with a slowed rerun (1)")
    steps = sorted(step for step in slow["stated_detectable"].values() if step is not None)
    print(f"  the history of runs 1-{args.at} said its search finds a step of {steps[0]:.1%} to {steps[-1]:.1%} "
          f"within 10 runs (9 times in 10), by series; {slow['stated_resolvable']} said {args.slowdown:.0%} or "
          f"less: the +{args.slowdown:.0%} found in {slow['stated_resolvable_found']} of them, and in "
          f"{slow['stated_unresolvable_found']} of the {slow['step_time_series'] - slow['stated_resolvable']} others")
    rolling = summary["rolling"]
    print(f"the gate run by run: {rolling['identical']['flagged_alone']} of {rolling['identical']['checks']} identical "
          f"runs flagged alone (each against the runs before it), {rolling['identical']['failed_with_rerun']} failed "
          f"with the next as rerun (target 0); {rolling['slowed']['flagged_alone']} of {rolling['slowed']['checks']} "
          f"slowed runs flagged alone, {rolling['slowed']['failed_with_rerun']} failed with the next slowed run as "
          f"rerun")
    for name, effect in (("identical", 0.0), ("slowed", args.slowdown)):
        judged = rolling[name]
        if judged["cells_judged"]:
            beyond = judged["flags_beyond"]
            levels = sorted(judged["host_level"].values())
            print(f"  {name} runs: {judged['cells_flagged']} of {judged['cells_judged']} cells flagged, "
                  f"{judged['cells_flagged_predicted']:.1f} predicted for a {effect:+.0%} change by the resolutions "
                  f"the checks reported (flagged beyond {beyond[0]:+.1%} to {beyond[-1]:+.1%}, "
                  f"median {statistics.median(beyond):+.1%}), {judged['cells_flagged_predicted_at_level']:.1f} "
                  f"with the host's level under those runs ({levels[0]:+.1%} to {levels[-1]:+.1%} by cell); the "
                  f"changes they saw spread {judged['changes_in_spreads_sd']:.2f} of the spreads the checks stated")
        if name == "identical":
            for flag in judged["flagged"]:
                print(f"    run {flag['run']} flagged {flag['cell']}: {flag['change']:+.1%} (flagged beyond "
                      f"{flag['flags_beyond']:+.1%}); with the next run as rerun the check exited {flag['rerun_exit']}")
    if ident["other_host_state"]:
        print("  runs the host spent in another state, left out of the step-time search: " + ", ".join(
            f"run {run} ({count} series)" for run, count in sorted(ident["other_host_state"].items())))
    for cell, figure, run, magnitude, attribution in ident["change_points"]:
        print(f"  identical code: {cell} {figure} at run {run}: {magnitude:+.1%}"
              + (" (the machine's)" if attribution else ""))
    for miss in slow["missed"]:
        print(f"  missed {miss['cell']} {miss['figure']}: its runs {expected}.. average "
              f"{miss['effective_step']:+.1%} against the ones before (the unslowed runs drifted by "
              f"{(1.0 + miss['effective_step']) / (1.0 + args.slowdown) - 1.0:+.1%}), spread {miss['spread_before']:.1%}")
    for name, key in (("SQLite", "cost"), ("PostgreSQL", "cost_postgresql")):
        if key in summary:
            cost = summary[key]
            print(f"{name}, {cost['runs_in_store']} runs in the store: history add {cost['add_s']:.2f} s (exit "
                  f"{cost['add_exit']}), history check {cost['check_s']:.2f} s (exit {cost['check_exit']}; targets "
                  f"< 1 s); {cost['bytes_per_run'] / 1024:.1f} KiB per run; the import of {args.big} runs took "
                  f"{cost['import_s']:.0f} s")


if __name__ == "__main__":
    main()
