#include "run/replicates.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>

#include "ampbench/reports/derived_figures.h"

namespace ampbench::harness::detail {
namespace {

void append_rounds(const reports::Rounds& later, reports::Rounds& joined) {
  const auto offset = static_cast<std::int64_t>(joined.step_time_s.size());
  for (const auto round : later.step_round) joined.step_round.push_back(round + offset);
  joined.step_time_s.insert(joined.step_time_s.end(), later.step_time_s.begin(), later.step_time_s.end());
  joined.probe_s.insert(joined.probe_s.end(), later.probe_s.begin(), later.probe_s.end());
  joined.round_replicate.insert(joined.round_replicate.end(), later.round_replicate.begin(),
                                later.round_replicate.end());
  if (joined.device && later.device) {
    joined.device->rounds.insert(joined.device->rounds.end(), later.device->rounds.begin(), later.device->rounds.end());
  } else {
    joined.device.reset();  // a replicate without the GPU's state: none for the cell's rounds
  }
  // A replicate whose worker crashed reran its modes alone: only modes interleaved in every
  // replicate were interleaved throughout.
  const auto& later_modes = later.interleaved_modes;
  std::erase_if(joined.interleaved_modes, [&](const std::string& mode) {
    return std::find(later_modes.begin(), later_modes.end(), mode) == later_modes.end();
  });
}

std::optional<std::int64_t> larger(const std::optional<std::int64_t>& a, const std::optional<std::int64_t>& b) {
  if (!a || !b) return a ? a : b;
  return std::max(*a, *b);
}

// A data-parallel cell's all-reduce samples join like its step times; each rank's median step
// time becomes the mean of its replicates' medians.
void append_data_parallel(const reports::DataParallel& later, std::size_t replicate, reports::DataParallel& joined) {
  joined.allreduce_times_s.insert(joined.allreduce_times_s.end(), later.allreduce_times_s.begin(),
                                  later.allreduce_times_s.end());
  const auto before = static_cast<double>(replicate);
  for (std::size_t rank = 0;
       rank < joined.rank_median_step_time_s.size() && rank < later.rank_median_step_time_s.size(); ++rank) {
    auto& median = joined.rank_median_step_time_s[rank];
    median = (median * before + later.rank_median_step_time_s[rank]) / (before + 1.0);
  }
  joined.inf_checks_agreed = joined.inf_checks_agreed && later.inf_checks_agreed;
}

void append_replicate(const reports::CellResult& later, std::size_t replicate, reports::CellResult& joined) {
  if (joined.status != reports::CellStatus::kOk) return;
  if (later.status != reports::CellStatus::kOk) {
    joined.status = later.status;
    joined.error = "replicate " + std::to_string(replicate + 1) + ": " + later.error;
    return;
  }
  joined.step_times_s.insert(joined.step_times_s.end(), later.step_times_s.begin(), later.step_times_s.end());
  joined.host_step_times_s.insert(joined.host_step_times_s.end(), later.host_step_times_s.begin(),
                                  later.host_step_times_s.end());
  if (joined.rounds && later.rounds) append_rounds(*later.rounds, *joined.rounds);
  if (joined.energy && later.energy) {
    auto& energy = *joined.energy;
    energy.round_joules.insert(energy.round_joules.end(), later.energy->round_joules.begin(),
                               later.energy->round_joules.end());
    energy.round_window_s.insert(energy.round_window_s.end(), later.energy->round_window_s.begin(),
                                 later.energy->round_window_s.end());
  } else {
    joined.energy.reset();
  }
  if (joined.page_faults && later.page_faults) {
    auto& faults = *joined.page_faults;
    faults.minor.insert(faults.minor.end(), later.page_faults->minor.begin(), later.page_faults->minor.end());
    faults.major.insert(faults.major.end(), later.page_faults->major.begin(), later.page_faults->major.end());
  } else {
    joined.page_faults.reset();  // a replicate without counts: no per-step figure for the cell
  }
  if (joined.data_parallel && later.data_parallel) {
    append_data_parallel(*later.data_parallel, replicate, *joined.data_parallel);
  }
  auto& memory = joined.memory;
  memory.peak_tensor_bytes = std::max(memory.peak_tensor_bytes, later.memory.peak_tensor_bytes);
  memory.peak_rss_bytes = std::max(memory.peak_rss_bytes, later.memory.peak_rss_bytes);
  memory.cuda_peak_reserved_bytes = larger(memory.cuda_peak_reserved_bytes, later.memory.cuda_peak_reserved_bytes);
}

}  // namespace

std::vector<reports::CellResult> join_replicates(const std::vector<std::vector<reports::CellResult>>& replicates) {
  if (replicates.empty()) return {};
  auto joined = replicates.front();
  for (auto& cell : joined) {
    for (std::size_t replicate = 1; replicate < replicates.size(); ++replicate) {
      const auto& cells = replicates[replicate];
      const auto later = std::find_if(cells.begin(), cells.end(), [&](const auto& c) { return c.mode == cell.mode; });
      if (later == cells.end()) continue;
      append_replicate(*later, replicate, cell);
      for (const auto& [reason, count] : later->throughput.stop_reasons) cell.throughput.stop_reasons[reason] += count;
    }
    if (cell.status != reports::CellStatus::kOk) continue;
    reports::derive_step_figures(cell);
  }
  return joined;
}

std::vector<std::string> modes_standing(const std::vector<reports::CellResult>& cells) {
  std::vector<std::string> modes;
  for (const auto& cell : cells) {
    if (cell.status == reports::CellStatus::kOk) modes.push_back(cell.mode);
  }
  return modes;
}

}  // namespace ampbench::harness::detail
