// relate_to_fp32 (run.h): each AMP cell against the FP32 cell of its workload.
#include <algorithm>

#include "ampbench/harness/mode.h"
#include "ampbench/harness/run.h"
#include "ampbench/reports/stats.h"

namespace ampbench::harness {
namespace {

bool interleaved_with(const reports::CellResult& cell, const reports::CellResult& reference) {
  // Rounds of one worker group interleave its modes; a cell of other ranks ran in other workers.
  if (!cell.rounds || !reference.rounds || cell.ranks != reference.ranks) return false;
  const auto& modes = cell.rounds->interleaved_modes;
  return std::find(modes.begin(), modes.end(), reference.mode) != modes.end() &&
         cell.rounds->step_time_s.size() == reference.rounds->step_time_s.size() &&
         cell.rounds->round_replicate == reference.rounds->round_replicate;
}

// Paired rounds when the two took turns in the same rounds (drift cancels in each pair; the
// interval is over replicates when there are several); else the
// two cells' own estimates, independently (wider), or for cells without rounds their medians.
reports::Ratio speedup(const reports::CellResult& reference, const reports::CellResult& cell) {
  if (interleaved_with(cell, reference)) {
    return reports::paired_round_ratio(reference.rounds->step_time_s, cell.rounds->step_time_s,
                                       cell.rounds->round_replicate);
  }
  if (cell.rounds && reference.rounds) {
    return reports::compare_rounds(cell.rounds->step_time_s, reference.rounds->step_time_s,
                                   cell.rounds->round_replicate, reference.rounds->round_replicate)
        .ratio;
  }
  return reports::median_ratio(reference.step_times_s, cell.step_times_s);
}

// From the numerics pass, when both ran it through (FP32 with its floor run).
std::optional<reports::Divergence> divergence(const reports::CellResult& reference, const reports::CellResult& cell) {
  if (!reference.numerics || !cell.numerics || !reference.numerics->error.empty() || !cell.numerics->error.empty() ||
      !reference.numerics->floor) {
    return std::nullopt;
  }
  try {
    return reports::compute_divergence(*reference.numerics, *cell.numerics);
  } catch (const std::invalid_argument&) {
    return std::nullopt;  // FP32 itself ended non-finite: there is nothing to measure against
  }
}

// Weak scaling: the one-rank cell's step time over this cell's (same mode and per-rank batch).
void relate_to_one_rank(reports::Report& report) {
  for (auto& cell : report.cells) {
    if (cell.status != reports::CellStatus::kOk || !cell.data_parallel) continue;
    const auto one = std::find_if(report.cells.begin(), report.cells.end(), [&](const auto& other) {
      return other.status == reports::CellStatus::kOk && other.ranks == 1 && other.mode == cell.mode &&
             other.workload == cell.workload && other.device == cell.device && other.preset == cell.preset;
    });
    if (one != report.cells.end()) cell.data_parallel->scaling_efficiency = speedup(*one, cell);
  }
}

}  // namespace

void relate_to_fp32(reports::Report& report) {
  relate_to_one_rank(report);
  for (auto& cell : report.cells) {
    if (cell.status != reports::CellStatus::kOk || is_reference_mode(find_mode(cell.mode))) continue;
    const auto reference = std::find_if(report.cells.begin(), report.cells.end(), [&](const auto& other) {
      return other.status == reports::CellStatus::kOk && is_reference_mode(find_mode(other.mode)) &&
             other.workload == cell.workload && other.device == cell.device && other.preset == cell.preset &&
             other.ranks == cell.ranks;
    });
    if (reference == report.cells.end()) continue;
    cell.speedup_vs_fp32 = speedup(*reference, cell);
    const double memory_ratio = static_cast<double>(cell.memory.peak_tensor_bytes) /
                                static_cast<double>(std::max<std::int64_t>(1, reference->memory.peak_tensor_bytes));
    cell.memory_ratio_vs_fp32 = reports::Ratio{memory_ratio, memory_ratio, memory_ratio};
    cell.divergence = divergence(*reference, cell);
  }
}

}  // namespace ampbench::harness
