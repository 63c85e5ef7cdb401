// The ratio of medians with a percentile-bootstrap interval. The generator is written out here
// (SplitMix64, unbiased bounded draws by rejection) because <random>'s distributions are not
// specified bit for bit: the same report must give the same interval on every toolchain.
//
// Cost: drawing n values per resample costs 2000 n draws per group, minutes at n = 10^7. Above
// kBootstrapDirectResampleLimit (stats.h) values a group's resampled median is drawn from its exact distribution
// instead: the k-th smallest of n uniform draws is Beta(k, n + 1 - k), and a uniform draw U picks
// the sorted sample x[floor(n U)], so the resample's k-th smallest value is x[floor(n U_(k))]. One
// sort, then O(1) per resample; the same bootstrap distribution, drawn differently.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <stdexcept>
#include <vector>

#include "ampbench/reports/stats.h"
#include "stats/sample_checks.h"

namespace ampbench::reports {
namespace {

class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}

  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }

  // Uniform in [0, bound): reject the top partial block so every value is equally likely.
  std::uint64_t below(std::uint64_t bound) {
    const std::uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
    std::uint64_t value = next();
    while (value >= limit) value = next();
    return value % bound;
  }

 private:
  std::uint64_t state_;
};

// Uniform in [0, 1) with 53 random bits; (0, 1] with open_at_zero, for logarithms.
double uniform(SplitMix64& generator, bool open_at_zero = false) {
  const double value = static_cast<double>(generator.next() >> 11) * 0x1.0p-53;
  return open_at_zero ? 1.0 - value : value;
}

// Standard normal by Box-Muller (one of the pair; simplicity over speed, a few thousand per call).
double normal(SplitMix64& generator) {
  const double radius = std::sqrt(-2.0 * std::log(uniform(generator, true)));
  return radius * std::cos(2.0 * std::numbers::pi * uniform(generator));
}

// Gamma(shape, 1) for shape >= 1, Marsaglia and Tsang (2000).
double gamma(double shape, SplitMix64& generator) {
  const double d = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    const double x = normal(generator);
    const double v = std::pow(1.0 + c * x, 3);
    if (v <= 0.0) continue;
    if (std::log(uniform(generator, true)) < 0.5 * x * x + d - d * v + d * std::log(v)) return d * v;
  }
}

// The median of a resample of the sorted samples, from the order statistics of n uniform draws.
double resampled_median_of_sorted(const std::vector<double>& sorted, SplitMix64& generator) {
  const std::size_t n = sorted.size();
  const auto value_at = [&sorted, n](double u) { return sorted[std::min(n - 1, static_cast<std::size_t>(u * n))]; };
  const std::size_t k = (n + 1) / 2;  // 1-based rank of the (lower) middle value
  const double a = gamma(static_cast<double>(k), generator);
  const double lower = a / (a + gamma(static_cast<double>(n + 1 - k), generator));  // Beta(k, n + 1 - k)
  if (n % 2 == 1) return value_at(lower);
  // The next order statistic: lower plus the gap to the smallest of the n - k draws above it.
  const double gap = 1.0 - std::pow(uniform(generator, true), 1.0 / static_cast<double>(n - k));
  return (value_at(lower) + value_at(lower + (1.0 - lower) * gap)) / 2.0;
}

// The median of a resample (with replacement) of samples; scratch avoids an allocation per draw.
double resampled_median(const std::vector<double>& samples, SplitMix64& generator, std::vector<double>& scratch) {
  scratch.resize(samples.size());
  for (double& value : scratch) value = samples[generator.below(samples.size())];
  const std::size_t middle = scratch.size() / 2;
  std::nth_element(scratch.begin(), scratch.begin() + static_cast<std::ptrdiff_t>(middle), scratch.end());
  const double upper = scratch[middle];
  if (scratch.size() % 2 == 1) return upper;
  const double lower = *std::max_element(scratch.begin(), scratch.begin() + static_cast<std::ptrdiff_t>(middle));
  return (lower + upper) / 2.0;
}

}  // namespace

Ratio median_ratio(const std::vector<double>& numerator_samples, const std::vector<double>& denominator_samples,
                   std::uint64_t seed) {
  detail::require_finite_samples(numerator_samples, "median_ratio numerator");
  detail::require_finite_samples(denominator_samples, "median_ratio denominator");
  const double denominator = median(denominator_samples);
  if (denominator == 0.0) throw std::invalid_argument("median_ratio: the denominator's median is 0");

  SplitMix64 generator(seed);
  std::vector<double> scratch;
  const auto sorted_if_large = [](const std::vector<double>& samples) {
    std::vector<double> sorted;
    if (samples.size() > kBootstrapDirectResampleLimit) {
      sorted = samples;
      std::sort(sorted.begin(), sorted.end());
    }
    return sorted;
  };
  const auto numerator_sorted = sorted_if_large(numerator_samples);
  const auto denominator_sorted = sorted_if_large(denominator_samples);
  const auto draw = [&](const std::vector<double>& samples, const std::vector<double>& sorted) {
    return sorted.empty() ? resampled_median(samples, generator, scratch)
                          : resampled_median_of_sorted(sorted, generator);
  };
  std::vector<double> ratios;
  ratios.reserve(kBootstrapResamples);
  for (int i = 0; i < kBootstrapResamples; ++i) {
    const double top = draw(numerator_samples, numerator_sorted);
    const double bottom = draw(denominator_samples, denominator_sorted);
    // A resampled median of 0 in a group whose median is not: leave that draw out rather than
    // let an infinity through.
    if (bottom != 0.0) ratios.push_back(top / bottom);
  }
  const double tail = (1.0 - kConfidence) / 2.0;
  return {median(numerator_samples) / denominator, quantile(ratios, tail), quantile(ratios, 1.0 - tail)};
}

}  // namespace ampbench::reports
