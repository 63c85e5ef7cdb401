"""Paired against alone at the same machine state, for bench/validity.py.

The per-repetition tables compare one estimate per run; when the host spends a different share of
each run in its slower states, they compare machine states as much as arrangements. Here every
round of every repetition is pooled per arrangement and cell, and only the rounds whose machine
probe took at most MATCHED_BAND times the benchmark's usual probe time count (the usual state, as
narrowly as the probe resolves it): per cell the median round of paired and of alone, their ratio,
the ratio of the speedups, and a 95% percentile-bootstrap interval for each. The bootstrap resamples
processes, each with all its rounds, not rounds: a worker process meets a machine of its own speed
for its lifetime, so its rounds are not independent draws (docs/performance.md, "Where a worker's
own speed comes from"), and an interval over rounds was narrower than two benchmarks differed by.
The modes of one paired worker are resampled together, so its own speed cancels in their speedup
as it does in the report's. The loops outside ampbench (PyTorch's Python loop, the bare LibTorch
loop) enter the same way, by their steps whose probe, timed before each step, was within the band of
the loop's own usual probe time, one process per repetition.
"""
import math
import statistics

import numpy as np

from benchkit import machine_state
from benchkit.intervals import Interval, ratio_with_interval

MATCHED_BAND = 1.1
MINIMUM_ROUNDS = 5


def round_medians(cell):
    """[(probe seconds, median step of the round, worker)] for every round of a report's cell (worker 0
    in reports without `round_replicate`)."""
    steps = {}
    for time, index in zip(cell["step_times_s"], cell["rounds"]["step_round"]):
        steps.setdefault(index, []).append(time)
    workers = cell["rounds"].get("round_replicate") or [0] * len(cell["rounds"]["probe_s"])
    return [(probe, statistics.median(steps[i]), workers[i])
            for i, probe in enumerate(cell["rounds"]["probe_s"]) if i in steps]


def in_band(samples, usual):
    """{cell: {process: [values whose probe is within the band]}} from {cell: [(process, probe, value)]}."""
    kept = {}
    for key, triples in samples.items():
        processes = kept.setdefault(key, {})
        for process, probe, value in triples:
            if probe <= MATCHED_BAND * usual:
                processes.setdefault(process, []).append(value)
    return kept


def pooled_rounds(loaded, modes):
    """{"paired"/"alone": {(workload, mode): {process: [its round medians in the band]}}} from each
    repetition's reports ({kind: [reports]}, alone's one per mode in `modes` order), and the usual
    probe time. A process is (repetition, report, worker): a paired worker's modes share it."""
    rounds = {"paired": {}, "alone": {}}
    for rep_index, rep in enumerate(loaded):
        for kind, reports in rep.items():
            for report_index, report in enumerate(reports):
                for c in report["cells"]:
                    if c["status"] != "ok" or not c.get("rounds") or (kind == "alone" and c["mode"] != modes[report_index]):
                        continue
                    rounds[kind].setdefault((c["workload"], c["mode"]), []).extend(
                        ((rep_index, report_index, worker), probe, t) for probe, t, worker in round_medians(c))
    usual = machine_state.usual(p for cells in rounds.values() for triples in cells.values() for _, p, _ in triples)
    return {kind: in_band(cells, usual) for kind, cells in rounds.items()}, usual


def pooled_loop_steps(reps, loop):
    """{(workload, mode): {repetition: [steps of the loop ("python", "bare") in the band of its own
    usual probe]}} (a loop's cell is one process per repetition), or None when the benchmark did not
    run it."""
    cells = {}
    for rep_index, rep in enumerate(reps):
        for key, cell in rep.get(f"{loop}_samples", {}).items():
            triples = cells.setdefault(tuple(key.split("/")), [])
            triples.extend((rep_index, probe, step) for probe, step in zip(cell["probe_s"], cell["step_s"]))
    if not cells:
        return None
    usual = machine_state.usual(p for triples in cells.values() for _, p, _ in triples)
    return in_band(cells, usual)


def count(sample):
    """How many rounds (or steps) a {process: [values]} sample holds; 0 for None."""
    return sum(len(values) for values in (sample or {}).values())


def pooled_median(sample):
    """The median of every value of a {process: [values]} sample."""
    return float(np.median(np.concatenate([np.asarray(values, dtype=float) for values in sample.values()])))


def ratio_of_medians_over_processes(numerators, denominators, *, resamples=2000, seed=0, confidence=0.95):
    """The product of the numerators' medians (over every value of each {process: [values]} sample)
    over the product of the denominators', with a percentile-bootstrap interval that resamples each
    sample's processes with replacement, each with all its values. Samples over the same processes
    (a paired worker's modes) share each draw; the others are drawn independently. Fixed seed. A
    sample from one process has no interval (nan bounds): a rerun's other processes are unseen."""
    samples = [*numerators, *denominators]
    if any(count(sample) == 0 for sample in samples):
        return Interval(math.nan, math.nan, math.nan)
    if any(len(sample) < 2 for sample in samples):
        return Interval(math.prod(map(pooled_median, numerators)) / math.prod(map(pooled_median, denominators)),
                        math.nan, math.nan)
    rng = np.random.default_rng(seed)
    draws = {}

    def medians(sample):
        processes = tuple(sorted(sample))
        if processes not in draws:
            draws[processes] = rng.integers(0, len(processes), size=(resamples, len(processes)))
        values = [np.asarray(sample[p], dtype=float) for p in processes]
        resampled = np.array([np.median(np.concatenate([values[i] for i in draw])) for draw in draws[processes]])
        return pooled_median(sample), resampled

    return ratio_with_interval([medians(s) for s in numerators], [medians(s) for s in denominators], confidence)


# Per figure, how far from 1 it may be: validity.py's targets.
TOLERANCES = {"paired_over_alone_time": 0.05, "paired_over_alone_speedup": 0.05, "paired_over_bare_time": 0.05,
              "paired_over_bare_speedup": 0.05, "paired_over_python_speedup": 0.10}


# A figure with no target of its own: how far the bare LibTorch loop's speedup is from PyTorch's
# Python loop's, which says whose a miss against Python's loop is (python_loop_misses).
BARE_OVER_PYTHON = "bare_over_python_speedup"


def figure_title(name):
    """A figure's column title in the tables: "paired_over_alone_time" -> "paired/alone time"."""
    return name.replace("_over_", "/").replace("_", " ")


def python_loop_misses(rows, value):
    """The cells whose speedup misses PyTorch's loop the way the bare LibTorch loop's does: the bare
    loop's is itself beyond the tolerance against Python's, and ampbench's is no further from
    Python's than the bare loop's: it agrees with the bare loop's (within that target) or lies
    between the two loops'. Both C++ loops time the same LibTorch step, and what differs is the
    Python loop's own cost per step (its interpreter, the optimizers' and GradScaler's Python code,
    autocast's context manager), which weighs more on a short FP32 step. `value(figure)` gives a
    row's figure as a number (a median over repetitions, or an interval's point)."""
    def shared(row):
        ours, bare = value(row["paired_over_python_speedup"]), value(row[BARE_OVER_PYTHON])
        agrees = abs(value(row["paired_over_bare_speedup"]) - 1.0) <= TOLERANCES["paired_over_bare_speedup"]
        between = min(bare, 1.0) <= ours <= max(bare, 1.0)
        return abs(bare - 1.0) > TOLERANCES["paired_over_python_speedup"] and (agrees or between)

    return {row["cell"] for row in rows
            if all(row.get(name) for name in ("paired_over_bare_speedup", "paired_over_python_speedup", BARE_OVER_PYTHON))
            and shared(row)}


def matched_rows(rounds, loops, workloads, modes):
    """Per cell: rounds kept per arrangement, paired/alone and paired/bare step time, and the
    speedups' ratios (against alone, the bare loop and PyTorch's loop), each (value, low, high), and
    the bare loop's speedup over PyTorch's loop's; with the targets of TOLERANCES.
    `loops`: {"python"/"bare": pooled_loop_steps(...)}."""
    enough = lambda sample: count(sample) >= MINIMUM_ROUNDS
    rows, verdicts = [], []
    for workload in workloads:
        for mode in modes:
            key, fp32 = (workload, mode), (workload, "fp32")
            paired, alone = rounds["paired"].get(key), rounds["alone"].get(key)
            row = {"cell": f"{workload}/{mode}", "rounds": [count(paired), count(alone)]}
            if enough(paired) and enough(alone):
                row["paired_over_alone_time"] = ratio_of_medians_over_processes([paired], [alone])
            if mode != "fp32" and all(enough(s) for s in (paired, alone, rounds["paired"].get(fp32), rounds["alone"].get(fp32))):
                row["paired_over_alone_speedup"] = ratio_of_medians_over_processes(
                    [rounds["paired"][fp32], alone], [paired, rounds["alone"][fp32]])
            for loop, steps in loops.items():
                if not steps or not enough(paired) or not enough(steps.get(key)):
                    continue
                if loop == "bare":  # no interpreter between the steps: the step times themselves compare
                    row["paired_over_bare_time"] = ratio_of_medians_over_processes([paired], [steps[key]])
                if mode != "fp32" and enough(steps.get(fp32)) and enough(rounds["paired"].get(fp32)):
                    row[f"paired_over_{loop}_speedup"] = ratio_of_medians_over_processes(
                        [rounds["paired"][fp32], steps[key]], [paired, steps[fp32]])
            bare, python = loops.get("bare"), loops.get("python")
            both_loops = bare and python and all(enough(s.get(k)) for s in (bare, python) for k in (key, fp32))
            if mode != "fp32" and both_loops:
                # Both loops' processes are numbered by repetition, so a draw takes a repetition's two
                # together: they ran next to each other.
                row[BARE_OVER_PYTHON] = ratio_of_medians_over_processes([bare[fp32], python[key]],
                                                                        [bare[key], python[fp32]])
            rows.append(row)
            verdicts.extend((row["cell"], name, abs(row[name].value - 1.0) <= tolerance)
                            for name, tolerance in TOLERANCES.items() if name in row)
    return rows, verdicts


def print_matched(rows, usual):
    """The table (validity.py prints its targets)."""
    print(f"matched state: every repetition's rounds pooled, those whose probe took at most {MATCHED_BAND}x "
          f"{usual * 1e6:.1f} us; ratio [95% bootstrap interval over processes]")
    names = (*TOLERANCES, BARE_OVER_PYTHON)
    print(f"{'cell':<20} {'rounds p/a':<11} " + " ".join(f"{figure_title(name):<24}" for name in names).rstrip())
    text = lambda figure: f"{figure.value:.3f} [{figure.low:.3f}, {figure.high:.3f}]" if figure else "-"
    for row in rows:
        counts = f"{row['rounds'][0]}/{row['rounds'][1]}"
        print(f"{row['cell']:<20} {counts:<11} " + " ".join(f"{text(row.get(name)):<24}" for name in names).rstrip())


def rows_as_json(rows):
    """The rows with each figure as {"value", "ci_low", "ci_high"}."""
    return [{name: (figure.as_json() if hasattr(figure, "as_json") else figure) for name, figure in row.items()}
            for row in rows]
