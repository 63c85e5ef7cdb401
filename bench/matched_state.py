"""Paired against alone at the same machine state, for bench/validity.py.

The per-repetition tables compare one estimate per run; when the host spends a different share of
each run in its slower states, they compare machine states as much as arrangements. Here every
round of every repetition is pooled per arrangement and cell, and only the rounds whose machine
probe took at most MATCHED_BAND times the benchmark's usual probe time count (the usual state, as
narrowly as the probe resolves it): per cell the median round of paired and of alone, their ratio,
the ratio of the speedups, and a 95% percentile-bootstrap interval over rounds for each. The loops
outside ampbench (PyTorch's Python loop, the bare LibTorch loop) enter the same way, by their steps
whose probe, timed before each step, was within the band of the loop's own usual probe time.
"""
import statistics

import machine_state
from side_by_side import bootstrap_ratio_of_medians

MATCHED_BAND = 1.1
MINIMUM_ROUNDS = 5


def round_medians(cell):
    """[(probe seconds, median step of the round)] for every round of a report's cell."""
    steps = {}
    for time, index in zip(cell["step_times_s"], cell["rounds"]["step_round"]):
        steps.setdefault(index, []).append(time)
    return [(probe, statistics.median(steps[i])) for i, probe in enumerate(cell["rounds"]["probe_s"]) if i in steps]


def pooled_rounds(loaded, modes):
    """{"paired"/"alone": {(workload, mode): [round medians in the band]}} from each repetition's
    reports ({kind: [reports]}, alone's one per mode in `modes` order), and the usual probe time."""
    rounds = {"paired": {}, "alone": {}}
    for rep in loaded:
        for kind, reports in rep.items():
            for mode_index, report in enumerate(reports):
                for c in report["cells"]:
                    if c["status"] != "ok" or not c.get("rounds") or (kind == "alone" and c["mode"] != modes[mode_index]):
                        continue
                    rounds[kind].setdefault((c["workload"], c["mode"]), []).extend(round_medians(c))
    usual = machine_state.usual(p for cells in rounds.values() for pairs in cells.values() for p, _ in pairs)
    return {kind: {key: [t for p, t in pairs if p <= MATCHED_BAND * usual] for key, pairs in cells.items()}
            for kind, cells in rounds.items()}, usual


def pooled_loop_steps(reps, loop):
    """{(workload, mode): [steps of the loop ("python", "bare") in the band of its own usual probe]},
    or None when the benchmark did not run it."""
    cells = {}
    for rep in reps:
        for key, cell in rep.get(f"{loop}_samples", {}).items():
            pairs = cells.setdefault(tuple(key.split("/")), [])
            pairs.extend(zip(cell["probe_s"], cell["step_s"]))
    if not cells:
        return None
    usual = machine_state.usual(p for pairs in cells.values() for p, _ in pairs)
    return {key: [t for p, t in pairs if p <= MATCHED_BAND * usual] for key, pairs in cells.items()}


# Per figure, how far from 1 it may be: validity.py's targets.
TOLERANCES = {"paired_over_alone_time": 0.05, "paired_over_alone_speedup": 0.05, "paired_over_bare_time": 0.05,
              "paired_over_bare_speedup": 0.05, "paired_over_python_speedup": 0.10}


def figure_title(name):
    """A figure's column title in the tables: "paired_over_alone_time" -> "paired/alone time"."""
    return name.replace("paired_over_", "paired/").replace("_", " ")


def matched_rows(rounds, loops, workloads, modes):
    """Per cell: rounds kept per arrangement, paired/alone and paired/bare step time, and the
    speedups' ratios (against alone, the bare loop and PyTorch's loop), each (value, low, high);
    with the targets of TOLERANCES. `loops`: {"python"/"bare": pooled_loop_steps(...)}."""
    enough = lambda sample: sample is not None and len(sample) >= MINIMUM_ROUNDS
    rows, verdicts = [], []
    for workload in workloads:
        for mode in modes:
            key, fp32 = (workload, mode), (workload, "fp32")
            paired, alone = rounds["paired"].get(key), rounds["alone"].get(key)
            row = {"cell": f"{workload}/{mode}", "rounds": [len(paired or []), len(alone or [])]}
            if enough(paired) and enough(alone):
                row["paired_over_alone_time"] = bootstrap_ratio_of_medians([paired], [alone])
            if mode != "fp32" and all(enough(s) for s in (paired, alone, rounds["paired"].get(fp32), rounds["alone"].get(fp32))):
                row["paired_over_alone_speedup"] = bootstrap_ratio_of_medians(
                    [rounds["paired"][fp32], alone], [paired, rounds["alone"][fp32]])
            for loop, steps in loops.items():
                if not steps or not enough(paired) or not enough(steps.get(key)):
                    continue
                if loop == "bare":  # no interpreter between the steps: the step times themselves compare
                    row["paired_over_bare_time"] = bootstrap_ratio_of_medians([paired], [steps[key]])
                if mode != "fp32" and enough(steps.get(fp32)) and enough(rounds["paired"].get(fp32)):
                    row[f"paired_over_{loop}_speedup"] = bootstrap_ratio_of_medians(
                        [rounds["paired"][fp32], steps[key]], [paired, steps[fp32]])
            rows.append(row)
            verdicts.extend((row["cell"], name, abs(row[name].value - 1.0) <= tolerance)
                            for name, tolerance in TOLERANCES.items() if name in row)
    return rows, verdicts


def print_matched(rows, usual):
    """The table (validity.py prints its targets)."""
    print(f"matched state: every repetition's rounds pooled, those whose probe took at most {MATCHED_BAND}x "
          f"{usual * 1e6:.1f} us; ratio [95% bootstrap interval over rounds]")
    names = tuple(TOLERANCES)
    print(f"{'cell':<20} {'rounds p/a':<11} " + " ".join(f"{figure_title(name):<24}" for name in names).rstrip())
    text = lambda figure: f"{figure.value:.3f} [{figure.low:.3f}, {figure.high:.3f}]" if figure else "-"
    for row in rows:
        counts = f"{row['rounds'][0]}/{row['rounds'][1]}"
        print(f"{row['cell']:<20} {counts:<11} " + " ".join(f"{text(row.get(name)):<24}" for name in names).rstrip())


def rows_as_json(rows):
    """The rows with each figure as {"value", "ci_low", "ci_high"}."""
    return [{name: (figure.as_json() if hasattr(figure, "as_json") else figure) for name, figure in row.items()}
            for row in rows]
