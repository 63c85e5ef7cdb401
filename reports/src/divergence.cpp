// Loss divergence of an AMP run from its FP32 reference; the statistic is defined in stats.h.
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "ampbench/reports/stats.h"
#include "distributions.h"

namespace ampbench::reports {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double relative_difference(double reference, double amp) {
  const double difference = std::fabs(amp - reference);
  if (difference == 0.0) return 0.0;
  return difference / std::fabs(reference);  // +inf for a reference of exactly 0
}

// The paired t-test of amp - reference over steps [first, last) against zero; also fills the
// window's mean relative difference. Steps where either loss is not finite are left out.
void test_final_window(const std::vector<double>& reference, const std::vector<double>& amp, std::size_t first,
                       std::size_t last, Divergence& result) {
  std::vector<double> differences;
  double reference_magnitude = 0.0;
  for (std::size_t i = first; i < last; ++i) {
    if (!std::isfinite(reference[i]) || !std::isfinite(amp[i])) continue;
    differences.push_back(amp[i] - reference[i]);
    reference_magnitude += std::fabs(reference[i]);
  }
  const auto w = static_cast<double>(differences.size());
  if (differences.empty()) {
    result.window_mean_relative_difference = kNaN;
    result.p_value = 1.0;
    return;
  }
  double mean = 0.0;
  for (double d : differences) mean += d;
  mean /= w;
  result.window_mean_relative_difference = reference_magnitude > 0.0 ? mean / (reference_magnitude / w)
                                           : mean == 0.0             ? 0.0
                                                                     : kNaN;
  if (differences.size() < 2) {
    result.p_value = 1.0;
    return;
  }
  double squares = 0.0;
  for (double d : differences) squares += (d - mean) * (d - mean);
  const double standard_error = std::sqrt(squares / (w - 1.0)) / std::sqrt(w);
  if (standard_error == 0.0) {
    result.p_value = mean == 0.0 ? 1.0 : 0.0;
    return;
  }
  result.p_value = detail::student_t_two_sided_p(mean / standard_error, w - 1.0);
}

}  // namespace

Divergence compute_divergence(const std::vector<double>& reference_losses, const std::vector<double>& amp_losses,
                              double bound) {
  if (!(bound >= 0.0))
    throw std::invalid_argument("compute_divergence: bound " + std::to_string(bound) + " is negative");
  Divergence result;
  result.bound = bound;
  const std::size_t n = std::min(reference_losses.size(), amp_losses.size());
  result.steps_compared = static_cast<std::int64_t>(n);
  bool amp_non_finite = false;
  for (std::size_t i = 0; i < n; ++i) {
    const bool reference_finite = std::isfinite(reference_losses[i]);
    if (reference_finite && !std::isfinite(amp_losses[i])) amp_non_finite = true;
    if (reference_finite && std::isfinite(amp_losses[i])) {
      result.max_relative_difference =
          std::max(result.max_relative_difference, relative_difference(reference_losses[i], amp_losses[i]));
    }
  }
  result.final_relative_difference = n == 0 ? 0.0 : relative_difference(reference_losses[n - 1], amp_losses[n - 1]);

  const std::size_t window = std::min<std::size_t>(static_cast<std::size_t>(kDivergenceWindow), n / 2);
  result.window = static_cast<std::int64_t>(window);
  test_final_window(reference_losses, amp_losses, n - window, n, result);

  if (amp_non_finite) {
    result.verdict = "non-finite loss";
  } else if (result.p_value < kDivergenceAlpha && std::fabs(result.window_mean_relative_difference) > bound) {
    result.verdict = "diverged";
  } else {
    result.verdict = "within bound";
  }
  return result;
}

}  // namespace ampbench::reports
