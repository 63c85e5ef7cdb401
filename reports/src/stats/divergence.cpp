// Loss divergence of an AMP cell's numerics pass from FP32's; the statistic is defined in stats.h.
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "ampbench/reports/stats.h"

namespace ampbench::reports {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// |other - reference| / |reference| per evaluation; NaN where the reference is not finite or zero.
std::vector<double> relative_differences(const std::vector<double>& reference, const std::vector<double>& other) {
  std::vector<double> differences;
  for (std::size_t i = 0; i < reference.size(); ++i) {
    const bool usable = std::isfinite(reference[i]) && reference[i] != 0.0 && std::isfinite(other[i]);
    differences.push_back(usable ? std::fabs(other[i] - reference[i]) / std::fabs(reference[i]) : kNaN);
  }
  return differences;
}

double mean_of_finite(std::vector<double>::const_iterator first, std::vector<double>::const_iterator last) {
  double sum = 0.0;
  std::size_t count = 0;
  for (auto value = first; value != last; ++value) {
    if (!std::isfinite(*value)) continue;
    sum += *value;
    ++count;
  }
  return count == 0 ? kNaN : sum / static_cast<double>(count);
}

}  // namespace

Divergence compute_divergence(const Numerics& reference, const Numerics& amp) {
  if (!reference.floor) throw std::invalid_argument("compute_divergence: the reference has no noise-floor run");
  const auto& fp32 = reference.run.eval_loss;
  if (reference.eval_steps != amp.eval_steps || fp32.size() != reference.eval_steps.size() ||
      amp.run.eval_loss.size() != fp32.size() || reference.floor->eval_loss.size() != fp32.size()) {
    throw std::invalid_argument("compute_divergence: the two numerics passes were not evaluated at the same steps");
  }
  Divergence result;
  result.steps = amp.steps;
  result.floor_multiple = kFloorMultiple;
  const auto amp_differences = relative_differences(fp32, amp.run.eval_loss);
  const auto floor_differences = relative_differences(fp32, reference.floor->eval_loss);
  bool amp_non_finite = false;
  for (std::size_t i = 0; i < fp32.size(); ++i) {
    if (std::isfinite(fp32[i]) && !std::isfinite(amp.run.eval_loss[i])) amp_non_finite = true;
    if (std::isfinite(amp_differences[i]))
      result.max_relative_difference = std::max(result.max_relative_difference, amp_differences[i]);
  }
  // Evaluation 0 is before any step: identical for every mode, so it is not part of the figures.
  const std::size_t after_start = fp32.size() > 1 ? fp32.size() - 1 : 0;
  const std::size_t window = std::max<std::size_t>(1, after_start / 4);
  result.final_evaluations = static_cast<std::int64_t>(std::min(window, fp32.size()));
  const auto first = static_cast<std::ptrdiff_t>(fp32.size() - static_cast<std::size_t>(result.final_evaluations));
  result.final_relative_difference = mean_of_finite(amp_differences.begin() + first, amp_differences.end());
  result.final_floor = mean_of_finite(floor_differences.begin() + first, floor_differences.end());
  if (!std::isfinite(result.final_floor) && !amp_non_finite)
    throw std::invalid_argument("compute_divergence: FP32's eval losses at the end of the pass are not finite");
  const double floor = std::isfinite(result.final_floor) ? std::max(result.final_floor, kMinimumFloor) : kMinimumFloor;
  result.ratio_to_floor = result.final_relative_difference / floor;

  if (amp_non_finite) {
    result.verdict = DivergenceVerdict::kNonFiniteLoss;
  } else if (result.ratio_to_floor > kFloorMultiple) {
    result.verdict = DivergenceVerdict::kDiverged;
  } else if (result.ratio_to_floor > 1.0) {
    result.verdict = DivergenceVerdict::kAboveFloor;
  } else {
    result.verdict = DivergenceVerdict::kWithinFloor;
  }
  return result;
}

}  // namespace ampbench::reports
