#include "ampbench/reports/stats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

#include "stats/distributions.h"
#include "stats/sample_checks.h"

namespace ampbench::reports {
namespace detail {

void require_finite_samples(const std::vector<double>& samples, std::string_view what) {
  if (samples.empty()) throw std::invalid_argument(std::string(what) + ": no samples");
  for (std::size_t i = 0; i < samples.size(); ++i) {
    if (!std::isfinite(samples[i])) {
      throw std::invalid_argument(std::string(what) + ": sample " + std::to_string(i) + " is not finite");
    }
  }
}

}  // namespace detail

namespace {

// Type 7 on samples that are already sorted.
double sorted_quantile(const std::vector<double>& sorted, double q) {
  const double h = static_cast<double>(sorted.size() - 1) * q;
  const auto below = static_cast<std::size_t>(std::floor(h));
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  return sorted[below] + (h - static_cast<double>(below)) * (sorted[above] - sorted[below]);
}

// Above this many samples the binomial sums are replaced by their normal approximation.
constexpr std::int64_t kExactRankLimit = 1000;
constexpr double kZ975 = 1.959963984540054;  // the standard normal's 97.5% quantile

}  // namespace

double median(std::vector<double> samples) { return quantile(std::move(samples), 0.5); }

double quantile(std::vector<double> samples, double q) {
  detail::require_finite_samples(samples, "quantile");
  if (!(q >= 0.0 && q <= 1.0)) throw std::invalid_argument("quantile: q = " + std::to_string(q) + " is outside [0, 1]");
  std::sort(samples.begin(), samples.end());
  return sorted_quantile(samples, q);
}

OrderStatisticRanks median_ci_ranks(std::int64_t n) {
  if (n < 1) throw std::invalid_argument("median_ci_ranks: n = " + std::to_string(n) + " is not positive");
  const double tail = (1.0 - kConfidence) / 2.0;
  std::int64_t lower = 0;
  if (n <= kExactRankLimit) {
    // The largest l with P(B <= l - 1) <= tail; the CDF grows with l, so walk up from l = 1.
    double cdf = 0.0;
    while (lower + 1 <= n / 2) {
      cdf += detail::binomial_half_pmf(lower, n);
      if (cdf > tail) break;
      ++lower;
    }
  } else {
    const double half_n = static_cast<double>(n) / 2.0;
    lower = static_cast<std::int64_t>(std::floor(half_n + 0.5 - kZ975 * std::sqrt(static_cast<double>(n)) / 2.0));
  }
  // No pair of order statistics reaches the confidence level for n < 6: fall back to min and max.
  lower = std::max<std::int64_t>(lower, 1);
  return {lower, n + 1 - lower};
}

SampleSummary summarize(const std::vector<double>& samples) {
  detail::require_finite_samples(samples, "summarize");
  std::vector<double> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  const auto n = static_cast<std::int64_t>(sorted.size());
  const auto ranks = median_ci_ranks(n);

  SampleSummary summary;
  summary.count = n;
  summary.median = sorted_quantile(sorted, 0.5);
  summary.ci_low = sorted[static_cast<std::size_t>(ranks.lower - 1)];
  summary.ci_high = sorted[static_cast<std::size_t>(ranks.upper - 1)];
  summary.p10 = sorted_quantile(sorted, 0.1);
  summary.p90 = sorted_quantile(sorted, 0.9);
  summary.mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(n);
  double squares = 0.0;
  for (double value : sorted) squares += (value - summary.mean) * (value - summary.mean);
  summary.stddev = n > 1 ? std::sqrt(squares / static_cast<double>(n - 1)) : 0.0;
  const double half_width = (summary.ci_high - summary.ci_low) / 2.0;
  if (half_width == 0.0) {
    summary.relative_ci_half_width = 0.0;
  } else if (summary.median == 0.0) {
    summary.relative_ci_half_width = std::numeric_limits<double>::infinity();
  } else {
    summary.relative_ci_half_width = half_width / std::fabs(summary.median);
  }
  return summary;
}

}  // namespace ampbench::reports
