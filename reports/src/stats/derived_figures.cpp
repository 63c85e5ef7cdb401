#include "ampbench/reports/derived_figures.h"

#include <algorithm>
#include <stdexcept>

#include "ampbench/reports/stats.h"
#include "stats/slow_machine_rounds.h"
#include "stats/throttled_rounds.h"

namespace ampbench::reports {
namespace {

// The median of each round's steps; a round without steps keeps its value.
void derive_round_medians(const std::vector<double>& step_times, Rounds& rounds) {
  std::vector<std::vector<double>> per_round(rounds.step_time_s.size());
  for (std::size_t i = 0; i < rounds.step_round.size() && i < step_times.size(); ++i) {
    const auto round = static_cast<std::size_t>(rounds.step_round[i]);
    if (round < per_round.size()) per_round[round].push_back(step_times[i]);
  }
  for (std::size_t round = 0; round < per_round.size(); ++round) {
    if (!per_round[round].empty()) rounds.step_time_s[round] = median(per_round[round]);
  }
}

bool interleaved_with(const CellResult& cell, const CellResult& reference) {
  // Rounds of one worker group interleave its modes; a cell of other ranks ran in other workers.
  if (!cell.rounds || !reference.rounds || cell.ranks != reference.ranks) return false;
  const auto& modes = cell.rounds->interleaved_modes;
  return std::find(modes.begin(), modes.end(), reference.mode) != modes.end() &&
         cell.rounds->step_time_s.size() == reference.rounds->step_time_s.size() &&
         cell.rounds->round_replicate == reference.rounds->round_replicate;
}

// Paired rounds when the two took turns in the same rounds (drift cancels in each pair; the
// interval is over replicates when there are several); else the two cells' own estimates,
// independently (wider), or for cells without rounds their medians. Rounds in `left_out` (the
// cell's; the reference's when they ran apart) do not count.
Ratio speedup(const CellResult& reference, const CellResult& cell, const std::vector<bool>& left_out,
              const std::vector<bool>& reference_left_out) {
  if (interleaved_with(cell, reference)) {
    const auto kept = kept_rounds(*cell.rounds, left_out);
    const auto kept_reference = kept_rounds(*reference.rounds, left_out);
    return paired_round_ratio(kept_reference.step_time_s, kept.step_time_s, kept.round_replicate);
  }
  if (cell.rounds && reference.rounds) {
    const auto kept = kept_rounds(*cell.rounds, left_out);
    const auto kept_reference = kept_rounds(*reference.rounds, reference_left_out);
    return compare_rounds(kept.step_time_s, kept_reference.step_time_s, kept.round_replicate,
                          kept_reference.round_replicate)
        .ratio;
  }
  return median_ratio(reference.step_times_s, cell.step_times_s);
}

// From the numerics pass, when both ran it through (FP32 with its floor run).
std::optional<Divergence> divergence(const CellResult& reference, const CellResult& cell) {
  if (!reference.numerics || !cell.numerics || !reference.numerics->error.empty() || !cell.numerics->error.empty() ||
      !reference.numerics->floor) {
    return std::nullopt;
  }
  try {
    return compute_divergence(*reference.numerics, *cell.numerics);
  } catch (const std::invalid_argument&) {
    return std::nullopt;  // FP32 itself ended non-finite: there is nothing to measure against
  }
}

// Per round: whether it ran slow (the machine probe's rule) or throttled (the GPU's); either
// leaves it out of the figures over the usual state.
std::vector<bool> slow_or_throttled(const std::vector<bool>& slow, const std::vector<bool>& throttled) {
  std::vector<bool> either(std::max(slow.size(), throttled.size()), false);
  for (std::size_t round = 0; round < either.size(); ++round) {
    either[round] = (round < slow.size() && slow[round]) || (round < throttled.size() && throttled[round]);
  }
  return either;
}

// Per cell (by index): the rounds its figures leave out. Counts each cell's slow and throttled
// rounds first.
std::vector<std::vector<bool>> mark_rounds_left_out(Report& report) {
  std::vector<std::vector<bool>> left_out;
  left_out.reserve(report.cells.size());
  for (auto& cell : report.cells) {
    const auto slow = detail::slow_machine_rounds(report, cell);
    const auto throttled = detail::throttled_rounds(cell);
    if (cell.rounds) cell.rounds->slow_machine_rounds = std::count(slow.begin(), slow.end(), true);
    if (cell.rounds && cell.rounds->device) {
      cell.rounds->device->throttled_rounds = std::count(throttled.begin(), throttled.end(), true);
    }
    left_out.push_back(detail::rounds_left_out(slow_or_throttled(slow, throttled)));
  }
  return left_out;
}

std::vector<double> kept_values(const std::vector<double>& values, const std::vector<bool>& left_out) {
  std::vector<double> kept;
  for (std::size_t round = 0; round < values.size(); ++round) {
    if (round >= left_out.size() || !left_out[round]) kept.push_back(values[round]);
  }
  return kept;
}

// This cell's joules per step over its reference's, by rounds as the speedup is (paired when the
// two were interleaved); absent unless both measured energy.
std::optional<Ratio> energy_ratio(const CellResult& reference, const CellResult& cell,
                                  const std::vector<bool>& left_out, const std::vector<bool>& reference_left_out) {
  if (!cell.energy || !reference.energy) return std::nullopt;
  const auto values = joules_per_step_by_round(cell);
  const auto reference_values = joules_per_step_by_round(reference);
  if (interleaved_with(cell, reference)) {
    return paired_round_ratio(kept_values(values, left_out), kept_values(reference_values, left_out),
                              kept_rounds(*cell.rounds, left_out).round_replicate);
  }
  return compare_rounds(kept_values(reference_values, reference_left_out), kept_values(values, left_out),
                        kept_rounds(*reference.rounds, reference_left_out).round_replicate,
                        kept_rounds(*cell.rounds, left_out).round_replicate)
      .ratio;
}

const std::vector<bool>& left_out_of(const Report& report, const std::vector<std::vector<bool>>& left_out,
                                     const CellResult& cell) {
  return left_out[static_cast<std::size_t>(&cell - report.cells.data())];
}

// Weak scaling: the one-rank cell's step time over this cell's (same mode and per-rank batch).
void relate_to_one_rank(Report& report, const std::vector<std::vector<bool>>& left_out) {
  for (auto& cell : report.cells) {
    if (cell.status != CellStatus::kOk || !cell.data_parallel) continue;
    const auto one = std::find_if(report.cells.begin(), report.cells.end(), [&](const CellResult& other) {
      return other.status == CellStatus::kOk && other.ranks == 1 && other.mode == cell.mode &&
             other.workload == cell.workload && other.device == cell.device && other.preset == cell.preset;
    });
    if (one != report.cells.end()) {
      cell.data_parallel->scaling_efficiency =
          speedup(*one, cell, left_out_of(report, left_out, cell), left_out_of(report, left_out, *one));
    }
  }
}

}  // namespace

void derive_step_figures(CellResult& cell) {
  auto& throughput = cell.throughput;
  throughput.step_time_s = summarize(cell.step_times_s);
  const double median_s = throughput.step_time_s.median;
  throughput.samples_per_s = static_cast<double>(throughput.samples_per_step) / median_s;
  throughput.tokens_per_s = static_cast<double>(throughput.tokens_per_step) / median_s;
  throughput.achieved_flops_per_s = throughput.flops_per_step / median_s;
  if (cell.rounds) {
    derive_round_medians(cell.step_times_s, *cell.rounds);
    cell.rounds->step_time = summarize_rounds(cell.rounds->step_time_s, cell.rounds->round_replicate);
  }
  if (cell.data_parallel && !cell.data_parallel->allreduce_times_s.empty()) {
    cell.data_parallel->allreduce_time_s = summarize(cell.data_parallel->allreduce_times_s);
  }
  if (cell.energy && cell.rounds) {
    auto& energy = *cell.energy;
    energy.joules_per_step = summarize_rounds(joules_per_step_by_round(cell), cell.rounds->round_replicate);
    double joules = 0.0;
    double seconds = 0.0;
    for (const double value : energy.round_joules) joules += value;
    for (const double value : energy.round_window_s) seconds += value;
    energy.average_power_w = seconds > 0.0 ? joules / seconds : 0.0;
  }
}

const CellResult* sibling_cell(const Report& report, const CellResult& cell, const std::string& mode) {
  const auto found = std::find_if(report.cells.begin(), report.cells.end(), [&](const CellResult& other) {
    return other.status == CellStatus::kOk && other.mode == mode && other.workload == cell.workload &&
           other.device == cell.device && other.preset == cell.preset && other.ranks == cell.ranks;
  });
  return found == report.cells.end() ? nullptr : &*found;
}

const CellResult* reference_cell(const Report& report, const CellResult& cell) {
  const auto reference = reference_mode_for(cell.mode);
  return cell.mode == reference ? nullptr : sibling_cell(report, cell, reference);
}

std::vector<bool> rounds_left_out_of_usual_state(const Report& report, const CellResult& cell) {
  return detail::rounds_left_out(
      slow_or_throttled(detail::slow_machine_rounds(report, cell), detail::throttled_rounds(cell)));
}

std::vector<double> joules_per_step_by_round(const CellResult& cell) {
  if (!cell.energy || !cell.rounds) return {};
  std::vector<double> steps(cell.energy->round_joules.size(), 0.0);
  for (const auto round : cell.rounds->step_round) {
    if (round >= 0 && static_cast<std::size_t>(round) < steps.size()) steps[static_cast<std::size_t>(round)] += 1.0;
  }
  std::vector<double> per_step;
  per_step.reserve(steps.size());
  for (std::size_t round = 0; round < steps.size(); ++round) {
    per_step.push_back(cell.energy->round_joules[round] / std::max(1.0, steps[round]));
  }
  return per_step;
}

void relate_to_fp32(Report& report) {
  const auto left_out = mark_rounds_left_out(report);
  relate_to_one_rank(report, left_out);
  for (auto& cell : report.cells) {
    if (cell.status != CellStatus::kOk) continue;
    const auto* reference = reference_cell(report, cell);
    if (reference == nullptr) continue;
    cell.speedup_vs_fp32 =
        speedup(*reference, cell, left_out_of(report, left_out, cell), left_out_of(report, left_out, *reference));
    const double memory_ratio = static_cast<double>(cell.memory.peak_tensor_bytes) /
                                static_cast<double>(std::max<std::int64_t>(1, reference->memory.peak_tensor_bytes));
    cell.memory_ratio_vs_fp32 = Ratio{memory_ratio, memory_ratio, memory_ratio};
    cell.divergence = divergence(*reference, cell);
    cell.energy_ratio_vs_fp32 =
        energy_ratio(*reference, cell, left_out_of(report, left_out, cell), left_out_of(report, left_out, *reference));
  }
}

}  // namespace ampbench::reports
