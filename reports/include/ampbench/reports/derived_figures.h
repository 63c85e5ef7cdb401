// The figures a report derives from its samples, computed in one place: the harness fills a run's
// cells in with these functions, and the reader recomputes them from the file's samples and
// refuses a file whose stored figures disagree (a gate must never judge per-round medians that no
// longer summarise the steps beside them).
#pragma once

#include "ampbench/reports/report.h"

namespace ampbench::reports {

// A round whose machine probe took more than this many times the run's usual probe time ran while
// the machine was in a slower state; it is left out of the speedup. Measured on a shared 2-core VM
// (docs/performance.md, "the host's two states"): the probe's rounds fall in two clusters, at
// 1.0-1.1x and 1.4-1.6x the usual time, and the slower state changes the speedup itself
// (bench/studies/host_states.py measures the states on a machine).
inline constexpr double kSlowMachineFactor = 1.3;

// From cell.step_times_s and its rounds' step_round: the median of each round, the step-time
// summary, the rates per second (from the per-step counts already in cell.throughput), the
// estimate over rounds (or over replicates when the rounds came from several worker processes),
// a data-parallel cell's all-reduce summary, and the joules per step and average power of a cell
// that measured energy.
void derive_step_figures(CellResult& cell);

// The successful cell of `mode` with the same workload, device, preset and ranks as `cell`; null
// when there is none.
[[nodiscard]] const CellResult* sibling_cell(const Report& report, const CellResult& cell, const std::string& mode);
// The sibling of the reference mode (FP32, or FP32 graphed for a graphed cell); null when there is
// none or `cell` is itself the reference.
[[nodiscard]] const CellResult* reference_cell(const Report& report, const CellResult& cell);

// Each successful AMP cell against its reference cell: the speedup (from paired rounds when the two
// were interleaved, else from the two cells' rounds, or steps, independently), the memory ratio and
// the numerics divergence; and the scaling efficiency of every data-parallel cell against its
// one-rank cell. First, every cell estimated under the slow-machine rule gets its count of slow
// rounds (Rounds::slow_machine_rounds): those whose probe took more than slow_machine_factor times
// the run's usual probe time, the 10th percentile over the rounds of every such cell with the same
// device, probe and ranks; and every GPU cell its throttled rounds (DeviceRounds::throttled_rounds).
// A speedup leaves the slow and throttled rounds out while two or more rounds remain. Cells that
// measured energy get their joules per step over the reference's, under the same rule.
void relate_to_fp32(Report& report);

// Per round of `cell`: whether its figures over the machine's usual state leave the round out (the
// speedup's rule above: slower than slow_machine_factor times the usual probe, or throttled by the
// GPU's rule (device_state.h), unless fewer than two rounds would remain). Empty when none is left out.
[[nodiscard]] std::vector<bool> rounds_left_out_of_usual_state(const Report& report, const CellResult& cell);

// A cell's rounds without those marked in `left_out` (which may be empty: none left out): per round
// its step time, its machine probe's time (when the rounds timed one) and its replicate (when the
// rounds came from several worker processes).
struct RoundSamples {
  std::vector<double> step_time_s;
  std::vector<double> probe_s;
  std::vector<std::int64_t> round_replicate;
};
[[nodiscard]] RoundSamples kept_rounds(const Rounds& rounds, const std::vector<bool>& left_out);

// Throws ReportError naming the first stored figure ("cells[2].rounds.step_time_s[4]: ...") that
// differs from what the report's samples give. Figures a report leaves out are not required.
void require_derived_figures_match(const Report& report);

// Per round of a cell that measured energy: its joules over its timed steps in that round. Empty
// without energy.
[[nodiscard]] std::vector<double> joules_per_step_by_round(const CellResult& cell);

}  // namespace ampbench::reports
