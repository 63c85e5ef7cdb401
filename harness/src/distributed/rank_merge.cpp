#include "distributed/rank_merge.h"

#include <algorithm>

#include "ampbench/reports/derived_figures.h"
#include "ampbench/reports/stats.h"

namespace ampbench::harness::detail {
namespace {

template <typename T>
void elementwise_max(std::vector<T>& into, const std::vector<T>& other) {
  for (std::size_t i = 0; i < into.size() && i < other.size(); ++i) into[i] = std::max(into[i], other[i]);
}

std::vector<std::int64_t> skipped_steps(const reports::CellResult& cell) {
  return cell.scaler ? cell.scaler->skipped_steps : std::vector<std::int64_t>{};
}

const reports::CellResult* mode_cell(const RankResult& rank, const std::string& mode) {
  if (!rank.cells) return nullptr;
  const auto found =
      std::find_if(rank.cells->begin(), rank.cells->end(), [&](const auto& cell) { return cell.mode == mode; });
  return found == rank.cells->end() ? nullptr : &*found;
}

// Why the mode has no cell on this group, or "" when every rank has a successful one. A rank that
// failed on its own comes before ranks stopped because of it.
std::string failure_of(const std::vector<RankResult>& ranks, const std::string& mode) {
  std::string stopped;
  for (std::size_t rank = 0; rank < ranks.size(); ++rank) {
    const auto prefix = "rank " + std::to_string(rank) + " of " + std::to_string(ranks.size()) + ": ";
    const auto* cell = mode_cell(ranks[rank], mode);
    std::string why;
    if (!ranks[rank].cells) {
      why = ranks[rank].failure;
    } else if (cell == nullptr) {
      why = "sent no cell for " + mode;
    } else if (cell->status != reports::CellStatus::kOk) {
      why = cell->error;
    }
    if (why.empty()) continue;
    if (why.rfind("stopped:", 0) == 0 || why.rfind("killed:", 0) == 0) {
      if (stopped.empty()) stopped = prefix + why;
      continue;
    }
    return prefix + why;
  }
  return stopped;
}

reports::CellResult merge_mode(const std::vector<RankResult>& ranks, const std::string& mode) {
  auto merged = *mode_cell(ranks.front(), mode);
  const auto world = static_cast<std::int64_t>(ranks.size());
  auto& parallel = merged.data_parallel.value();
  std::vector<double> loss_sum(merged.losses.size(), 0.0);
  bool agreed = true;
  for (const auto& rank : ranks) {
    const auto& cell = *mode_cell(rank, mode);
    if (cell.step_times_s.size() != merged.step_times_s.size() || cell.losses.size() != merged.losses.size()) {
      throw std::runtime_error("the ranks ran different numbers of steps (" + std::to_string(cell.step_times_s.size()) +
                               " and " + std::to_string(merged.step_times_s.size()) + ")");
    }
    elementwise_max(merged.step_times_s, cell.step_times_s);
    elementwise_max(merged.host_step_times_s, cell.host_step_times_s);
    if (merged.page_faults && cell.page_faults) {
      elementwise_max(merged.page_faults->minor, cell.page_faults->minor);
      elementwise_max(merged.page_faults->major, cell.page_faults->major);
    }
    if (cell.data_parallel) elementwise_max(parallel.allreduce_times_s, cell.data_parallel->allreduce_times_s);
    for (std::size_t i = 0; i < loss_sum.size(); ++i) loss_sum[i] += cell.losses[i];
    parallel.rank_median_step_time_s.push_back(reports::median(cell.step_times_s));
    agreed = agreed && skipped_steps(cell) == skipped_steps(merged);
    auto& memory = merged.memory;
    memory.peak_tensor_bytes = std::max(memory.peak_tensor_bytes, cell.memory.peak_tensor_bytes);
    memory.peak_rss_bytes = std::max(memory.peak_rss_bytes, cell.memory.peak_rss_bytes);
  }
  for (std::size_t i = 0; i < loss_sum.size(); ++i) merged.losses[i] = loss_sum[i] / static_cast<double>(world);
  parallel.inf_checks_agreed = agreed;
  merged.ranks = world;
  merged.throughput.samples_per_step *= world;
  merged.throughput.tokens_per_step *= world;
  merged.throughput.flops_per_step *= static_cast<double>(world);
  reports::derive_step_figures(merged);
  if (!agreed) {
    merged.status = reports::CellStatus::kFailed;
    merged.error = "the ranks' GradScalers skipped different steps: their gradients were not the same";
  }
  return merged;
}

}  // namespace

std::vector<reports::CellResult> merge_ranks(const WorkloadTask& task, const std::vector<RankResult>& ranks) {
  std::vector<reports::CellResult> cells;
  for (const auto& mode : task.modes) {
    const auto why = failure_of(ranks, mode);
    if (!why.empty()) {
      cells.push_back(failed_cell(task, mode, why));
      continue;
    }
    try {
      cells.push_back(merge_mode(ranks, mode));
    } catch (const std::exception& error) {
      cells.push_back(failed_cell(task, mode, error.what()));
    }
  }
  return cells;
}

}  // namespace ampbench::harness::detail
