#include "ampbench/reports/compare.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "ampbench/reports/derived_figures.h"
#include "stats/throttled_rounds.h"

namespace ampbench::reports {
namespace {

void compare_rounds_of(const CellResult& base, const CellResult& current, CellComparison& result) {
  if (!base.rounds || !current.rounds) return;
  const auto& b = *base.rounds;
  const auto& c = *current.rounds;
  result.base_rounds = static_cast<std::int64_t>(b.step_time_s.size());
  result.current_rounds = static_cast<std::int64_t>(c.step_time_s.size());
  result.raw_rounds = compare_rounds(b.step_time_s, c.step_time_s, b.round_replicate, c.round_replicate);
  if (b.probe_s.empty() || c.probe_s.empty()) return;
  if (b.probe != c.probe) {
    result.probe_mismatch = "machine probes differ (baseline: " + b.probe + "; current: " + c.probe + ")";
    return;
  }
  result.probe_rounds = compare_rounds(b.probe_s, c.probe_s, b.round_replicate, c.round_replicate);
  result.normalised_rounds =
      compare_rounds(per_probe_step_times(b), per_probe_step_times(c), b.round_replicate, c.round_replicate);
}

void compare_times(const CellResult& base, const CellResult& current, CellComparison& result) {
  result.base_time = summarize(base.step_times_s);
  result.current_time = summarize(current.step_times_s);
  result.time_ratio = median_ratio(current.step_times_s, base.step_times_s);
  result.u_test = mann_whitney_u(current.step_times_s, base.step_times_s);
  compare_rounds_of(base, current, result);
}

std::optional<std::int64_t> first_unskipped_nonfinite_norm(const CellResult& cell) {
  for (std::size_t step = 0; step < cell.grad_norms.size(); ++step) {
    if (std::isfinite(cell.grad_norms[step])) continue;
    const auto index = static_cast<std::int64_t>(step);
    const bool skipped = cell.scaler && std::find(cell.scaler->skipped_steps.begin(), cell.scaler->skipped_steps.end(),
                                                  index) != cell.scaler->skipped_steps.end();
    if (!skipped) return index;
  }
  return std::nullopt;
}

void compare_memory_and_divergence(const CellResult& base, const CellResult& current, CellComparison& result) {
  result.current_nonfinite_grad_norm_step = first_unskipped_nonfinite_norm(current);
  result.base_peak_bytes = base.memory.peak_tensor_bytes;
  result.current_peak_bytes = current.memory.peak_tensor_bytes;
  if (base.memory.peak_tensor_bytes > 0) {
    result.memory_ratio =
        static_cast<double>(current.memory.peak_tensor_bytes) / static_cast<double>(base.memory.peak_tensor_bytes);
  }
  result.base_divergence = base.divergence;
  result.current_divergence = current.divergence;
  if (base.divergence && current.divergence) {
    result.divergence_change =
        current.divergence->final_relative_difference - base.divergence->final_relative_difference;
  }
}

std::vector<double> usual_state_joules_per_step(const Report& report, const CellResult& cell) {
  const auto left_out = rounds_left_out_of_usual_state(report, cell);
  const auto per_round = joules_per_step_by_round(cell);
  std::vector<double> kept;
  for (std::size_t round = 0; round < per_round.size(); ++round) {
    if (round >= left_out.size() || !left_out[round]) kept.push_back(per_round[round]);
  }
  return kept;
}

std::optional<ThrottledRounds> throttled_rounds_of(const CellResult& cell) {
  if (!cell.rounds || !cell.rounds->device) return std::nullopt;
  const auto& device = *cell.rounds->device;
  return ThrottledRounds{device.throttled_rounds, static_cast<std::int64_t>(device.rounds.size()),
                         detail::throttle_causes_of(cell)};
}

// Joules per step by rounds, and each side's throttled rounds with what throttled them.
void compare_device_state(const Report& base_report, const CellResult& base, const Report& current_report,
                          const CellResult& current, CellComparison& result) {
  if (base.energy && current.energy) {
    result.energy = compare_rounds(
        usual_state_joules_per_step(base_report, base), usual_state_joules_per_step(current_report, current),
        kept_rounds(*base.rounds, rounds_left_out_of_usual_state(base_report, base)).round_replicate,
        kept_rounds(*current.rounds, rounds_left_out_of_usual_state(current_report, current)).round_replicate);
  }
  result.base_throttled = throttled_rounds_of(base);
  result.current_throttled = throttled_rounds_of(current);
}

std::string why_not_comparable(const CellResult& base, const CellResult& current) {
  if (base.status != CellStatus::kOk && current.status != CellStatus::kOk) return "failed in both reports";
  if (current.status != CellStatus::kOk) return "failed in current: " + current.error;
  if (base.status != CellStatus::kOk) return "failed in baseline: " + base.error;
  if (base.step_times_s.empty() || current.step_times_s.empty()) return "no step-time samples";
  return "";
}

}  // namespace

std::string CellKey::label() const {
  std::string text;
  for (const std::string* part : {&workload, &mode, &device, &preset}) {
    if (part->empty()) continue;
    text += (text.empty() ? "" : "/") + *part;
  }
  return ranks == 1 ? text : text + "/ranks=" + std::to_string(ranks);
}

CellKey key_of(const CellResult& cell) { return {cell.workload, cell.mode, cell.device, cell.preset, cell.ranks}; }

namespace {

std::string rerun_text(const std::string& run, const WorkerRerun& rerun) {
  std::string modes;
  for (const auto& mode : rerun.modes) modes += (modes.empty() ? "" : ", ") + mode;
  return run + ": worker " + std::to_string(rerun.replicate + 1) + " (" + modes + " together) ended: " + rerun.reason +
         "; its modes ran again alone";
}

}  // namespace

ReportComparison compare_reports(const Report& base, const Report& current) {
  std::map<CellKey, const CellResult*> base_cells;
  for (const auto& cell : base.cells) base_cells.emplace(key_of(cell), &cell);
  ReportComparison comparison;
  std::map<CellKey, bool> matched;
  for (const auto& cell : current.cells) {
    const auto found = base_cells.find(key_of(cell));
    if (found == base_cells.end()) {
      comparison.only_in_current.push_back(key_of(cell));
      continue;
    }
    matched[found->first] = true;
    CellComparison result;
    result.key = found->first;
    result.note = why_not_comparable(*found->second, cell);
    result.comparable = result.note.empty();
    result.failed_only_in_current = found->second->status == CellStatus::kOk && cell.status != CellStatus::kOk;
    if (result.comparable) {
      compare_times(*found->second, cell, result);
      compare_device_state(base, *found->second, current, cell, result);
    }
    compare_memory_and_divergence(*found->second, cell, result);
    for (const auto& [run, report, compared] :
         {std::tuple{"baseline", &base, found->second}, {"current", &current, &cell}}) {
      for (const auto* rerun : reruns_of(*report, *compared)) result.reruns.push_back(rerun_text(run, *rerun));
    }
    comparison.cells.push_back(std::move(result));
  }
  for (const auto& cell : base.cells) {
    if (!matched.contains(key_of(cell))) comparison.only_in_base.push_back(key_of(cell));
  }
  return comparison;
}

}  // namespace ampbench::reports
