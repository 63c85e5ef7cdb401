#include "stats/throttled_rounds.h"

#include <algorithm>
#include <map>

namespace ampbench::reports::detail {

std::vector<bool> throttled_rounds(const CellResult& cell) {
  if (cell.status != CellStatus::kOk || !cell.rounds || !cell.rounds->device) return {};
  const auto& device = *cell.rounds->device;
  std::vector<bool> throttled;
  throttled.reserve(device.rounds.size());
  for (const auto& round : device.rounds) throttled.push_back(!throttle_causes(device, round).empty());
  return throttled;
}

std::vector<std::string> throttle_causes_of(const CellResult& cell) {
  if (!cell.rounds || !cell.rounds->device) return {};
  const auto& device = *cell.rounds->device;
  std::map<std::string, int> counts;
  for (const auto& round : device.rounds) {
    for (const auto& cause : throttle_causes(device, round)) ++counts[cause];
  }
  std::vector<std::pair<std::string, int>> ranked(counts.begin(), counts.end());
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::vector<std::string> causes;
  for (const auto& [cause, count] : ranked) causes.push_back(cause);
  return causes;
}

}  // namespace ampbench::reports::detail
