#include "ampbench/history/change_attribution.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace ampbench::history {
namespace {

// The position of a run in a series, or the series' size when it is not there.
std::size_t position_of(const std::vector<SeriesEntry>& series, std::int64_t run) {
  const auto found =
      std::find_if(series.begin(), series.end(), [run](const SeriesEntry& entry) { return entry.run_id == run; });
  return static_cast<std::size_t>(found - series.begin());
}

}  // namespace

std::optional<ChangePoint> machines_change(const std::vector<SeriesEntry>& step_time,
                                           const std::vector<StoredChangePoint>& step_time_changes, std::size_t which,
                                           const std::vector<SeriesEntry>& per_probe,
                                           const std::vector<StoredChangePoint>& per_probe_changes) {
  const auto& change = step_time_changes.at(which);
  const auto at = position_of(step_time, change.run_id);
  if (at == step_time.size()) return std::nullopt;
  for (const auto& other : per_probe_changes) {
    const auto other_at = position_of(step_time, other.run_id);
    if (other_at == step_time.size()) continue;
    const auto distance = other_at > at ? other_at - at : at - other_at;
    if (distance <= kMachineChangeTolerance) return std::nullopt;
  }
  // The runs the raw change was judged on: from the change point before it to the one after.
  const std::int64_t first_run =
      which == 0 ? std::numeric_limits<std::int64_t>::min() : step_time_changes[which - 1].run_id;
  const std::int64_t end_run = which + 1 == step_time_changes.size() ? std::numeric_limits<std::int64_t>::max()
                                                                     : step_time_changes[which + 1].run_id;
  std::vector<SeriesPoint> points;
  std::size_t split = 0;
  for (const auto& entry : per_probe) {
    if (entry.run_id < first_run || entry.run_id >= end_run) continue;
    if (entry.run_id < change.run_id) ++split;
    points.push_back(entry.value);
  }
  if (split < 2 || points.size() - split < 2) return std::nullopt;
  auto ratio = test_split(points, 0, split, points.size(), ChangeScale::kRelative);
  if (ratio.p_value < kMachineChangeRatioP ||
      std::abs(ratio.magnitude) >= kMachineChangeRatioShare * std::abs(change.change.magnitude)) {
    return std::nullopt;
  }
  ratio.index = at;
  return ratio;
}

}  // namespace ampbench::history
