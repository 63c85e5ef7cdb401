"""The slow-machine rule of ampbench's reports, for the Python benchmarks that read them.

A round ran in the host's slower state when its machine probe took more than SLOW_MACHINE_FACTOR
times the usual probe time, the USUAL_QUANTILE quantile of the probe times it is judged against
(reports/src/stats/slow_machine_rounds.cpp: the report applies it to its speedups). The estimator over
rounds is the report's own (reports/src/stats/round_stats.cpp summarize_rounds): the geometric mean over
replicates of each replicate's geometric mean round, or over rounds when fewer than two replicates.
"""
import math

SLOW_MACHINE_FACTOR = 1.3
USUAL_QUANTILE = 0.10


def usual(values):
    """The usual value of probe times: the same index into the sorted values as the report's."""
    ordered = sorted(values)
    return ordered[int(USUAL_QUANTILE * (len(ordered) - 1))]


def _geometric_mean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


def round_estimate(step_times, replicates):
    """The report's step-time estimate over these rounds (per-round medians, their replicates)."""
    groups = {}
    for value, replicate in zip(step_times, replicates):
        groups.setdefault(replicate, []).append(value)
    means = [_geometric_mean(g) for g in groups.values()]
    return _geometric_mean(means) if len(means) >= 2 else _geometric_mean(step_times)


def usual_state_estimate(rounds, usual_probe_s, minimum_rounds=2):
    """(estimate, rounds kept, rounds in all) over the rounds whose probe was within the factor of
    usual_probe_s; the estimate is None when fewer than minimum_rounds remain."""
    kept = [i for i, probe in enumerate(rounds["probe_s"]) if probe <= SLOW_MACHINE_FACTOR * usual_probe_s]
    total = len(rounds["probe_s"])
    if len(kept) < minimum_rounds:
        return None, len(kept), total
    times = [rounds["step_time_s"][i] for i in kept]
    replicates = [rounds["round_replicate"][i] for i in kept] if rounds.get("round_replicate") else [0] * len(kept)
    return round_estimate(times, replicates), len(kept), total


def mlp_probe_step():
    """One training step of the CPU probe's float32 MLP (harness/src/measure/machine_probe.cpp:
    32-128-128-1, batch 128), as a callable: the probe of the benchmarks' own Python loops."""
    import torch  # only the callers that time Python need torch

    torch.manual_seed(0)
    mlp = torch.nn.Sequential(torch.nn.Linear(32, 128), torch.nn.ReLU(), torch.nn.Linear(128, 128), torch.nn.ReLU(),
                              torch.nn.Linear(128, 1))
    optimizer = torch.optim.SGD(mlp.parameters(), lr=1e-3)
    x, y = torch.rand(128, 32), torch.rand(128, 1)

    def step():
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(mlp(x), y).backward()
        optimizer.step()

    return step
