// The ratio of medians with a percentile-bootstrap interval. The generator is written out here
// (SplitMix64, unbiased bounded draws by rejection) because <random>'s distributions are not
// specified bit for bit: the same report must give the same interval on every toolchain.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "ampbench/reports/stats.h"
#include "sample_checks.h"

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
  std::vector<double> ratios;
  ratios.reserve(kBootstrapResamples);
  for (int i = 0; i < kBootstrapResamples; ++i) {
    const double top = resampled_median(numerator_samples, generator, scratch);
    const double bottom = resampled_median(denominator_samples, generator, scratch);
    // A resampled median of 0 in a group whose median is not: leave that draw out rather than
    // let an infinity through.
    if (bottom != 0.0) ratios.push_back(top / bottom);
  }
  const double tail = (1.0 - kConfidence) / 2.0;
  return {median(numerator_samples) / denominator, quantile(ratios, tail), quantile(ratios, 1.0 - tail)};
}

}  // namespace ampbench::reports
