#include "measure/interleaving_groups.h"

#include <algorithm>
#include <numeric>

#include "ampbench/reports/slow_partner_limits.h"

namespace ampbench::harness::detail {

std::vector<std::vector<std::size_t>> interleaving_groups(const std::vector<double>& step_seconds,
                                                          const RoundsOfGroup& rounds_of) {
  std::vector<std::size_t> together(step_seconds.size());
  std::iota(together.begin(), together.end(), std::size_t{0});
  if (together.size() < 2 || rounds_of(together) >= reports::kFewRoundsPerWorker) return {together};
  auto slowest_first = together;
  std::stable_sort(slowest_first.begin(), slowest_first.end(),
                   [&](std::size_t a, std::size_t b) { return step_seconds[a] > step_seconds[b]; });
  // The fewest slowest modes whose absence gives the others their rounds; apart, each loses its
  // pairing, worth it only for that, and only for a mode far slower than every one that stays.
  for (std::size_t apart = 1; apart < slowest_first.size(); ++apart) {
    if (step_seconds[slowest_first[apart - 1]] < reports::kFarSlower * step_seconds[slowest_first[apart]]) continue;
    auto others = together;
    for (std::size_t i = 0; i < apart; ++i) std::erase(others, slowest_first[i]);
    if (rounds_of(others) < reports::kFewRoundsPerWorker) continue;
    std::vector<std::vector<std::size_t>> groups{others};
    for (std::size_t i = 0; i < apart; ++i) groups.push_back({slowest_first[i]});
    return groups;
  }
  return {together};
}

}  // namespace ampbench::harness::detail
