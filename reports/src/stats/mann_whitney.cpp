// The two-sided Mann-Whitney U test, following scipy.stats.mannwhitneyu (method "auto", with
// continuity correction), which is what Google Benchmark's compare.py reports.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "ampbench/reports/stats.h"
#include "stats/distributions.h"
#include "stats/sample_checks.h"

namespace ampbench::reports {
namespace {

struct RankSums {
  double first = 0.0;     // the sum of the first sample's (mid)ranks
  double tie_term = 0.0;  // sum over tie groups of t^3 - t
};

RankSums rank_sums(const std::vector<double>& x, const std::vector<double>& y) {
  std::vector<std::pair<double, bool>> pooled;  // (value, from x)
  pooled.reserve(x.size() + y.size());
  for (double value : x) pooled.emplace_back(value, true);
  for (double value : y) pooled.emplace_back(value, false);
  std::sort(pooled.begin(), pooled.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  RankSums sums;
  for (std::size_t start = 0; start < pooled.size();) {
    std::size_t end = start;
    while (end < pooled.size() && pooled[end].first == pooled[start].first) ++end;
    const double mid_rank = (static_cast<double>(start + 1) + static_cast<double>(end)) / 2.0;
    const auto tied = static_cast<double>(end - start);
    sums.tie_term += tied * tied * tied - tied;
    for (std::size_t i = start; i < end; ++i) {
      if (pooled[i].second) sums.first += mid_rank;
    }
    start = end;
  }
  return sums;
}

// P(U >= u) under the null hypothesis, without ties. The counts of arrangements with U = k are
// the coefficients of the Gaussian binomial [m + n choose m]_q = prod_{i=1..m} (1 - q^(n+i)) /
// (1 - q^i); after each factor the product is again a polynomial, so the running coefficients
// stay non-negative and bounded by the final ones.
double exact_upper_tail(std::int64_t u, std::int64_t m, std::int64_t n) {
  const auto size = static_cast<std::size_t>(m * n + 1);
  std::vector<double> counts(size, 0.0);
  counts[0] = 1.0;
  for (std::int64_t i = 1; i <= m; ++i) {
    const auto shift_up = static_cast<std::size_t>(n + i);
    for (std::size_t k = size; k-- > shift_up;) counts[k] -= counts[k - shift_up];
    const auto shift_down = static_cast<std::size_t>(i);
    for (std::size_t k = shift_down; k < size; ++k) counts[k] += counts[k - shift_down];
  }
  double total = 0.0;
  double tail = 0.0;
  for (std::size_t k = 0; k < size; ++k) {
    total += counts[k];
    if (static_cast<std::int64_t>(k) >= u) tail += counts[k];
  }
  return tail / total;
}

}  // namespace

UTestResult mann_whitney_u(const std::vector<double>& x, const std::vector<double>& y) {
  detail::require_finite_samples(x, "mann_whitney_u first sample");
  detail::require_finite_samples(y, "mann_whitney_u second sample");
  const auto n1 = static_cast<double>(x.size());
  const auto n2 = static_cast<double>(y.size());
  const RankSums sums = rank_sums(x, y);

  UTestResult result;
  result.u = sums.first - n1 * (n1 + 1.0) / 2.0;
  const double larger_u = std::max(result.u, n1 * n2 - result.u);
  const auto smaller_size = static_cast<std::int64_t>(std::min(x.size(), y.size()));
  if (sums.tie_term == 0.0 && smaller_size <= kExactUTestMaxSize) {
    result.exact = true;
    const auto larger_size = static_cast<std::int64_t>(std::max(x.size(), y.size()));
    const auto u_rounded = static_cast<std::int64_t>(std::llround(larger_u));
    result.p_value = std::min(1.0, 2.0 * exact_upper_tail(u_rounded, smaller_size, larger_size));
    return result;
  }
  const double n = n1 + n2;
  const double variance = n1 * n2 / 12.0 * ((n + 1.0) - sums.tie_term / (n * (n - 1.0)));
  if (variance <= 0.0) {  // every value tied: no evidence either way
    result.p_value = 1.0;
    return result;
  }
  const double z = (larger_u - n1 * n2 / 2.0 - 0.5) / std::sqrt(variance);
  result.p_value = std::clamp(2.0 * detail::normal_upper_tail(z), 0.0, 1.0);
  return result;
}

}  // namespace ampbench::reports
