// Estimates over interleaved rounds and replicates (stats.h): geometric means with Student t intervals on logs.
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "ampbench/reports/stats.h"
#include "stats/distributions.h"

namespace ampbench::reports {
namespace {

struct LogMoments {
  double mean = 0.0;
  double variance = 0.0;  // sample variance (n - 1); 0 for one value
  double count = 0.0;
};

LogMoments log_moments(const std::vector<double>& values, const char* what) {
  if (values.empty()) throw std::invalid_argument(std::string(what) + ": no rounds");
  LogMoments moments;
  moments.count = static_cast<double>(values.size());
  for (const double value : values) {
    if (!(std::isfinite(value) && value > 0.0)) {
      throw std::invalid_argument(std::string(what) + ": a round value is not a positive finite number");
    }
    moments.mean += std::log(value);
  }
  moments.mean /= moments.count;
  for (const double value : values) moments.variance += std::pow(std::log(value) - moments.mean, 2);
  if (values.size() > 1) moments.variance /= moments.count - 1.0;
  return moments;
}

double t_critical(double degrees_of_freedom) {
  return detail::student_t_critical_value(1.0 - kConfidence, degrees_of_freedom);
}

}  // namespace

std::vector<double> replicate_means(const std::vector<double>& values,
                                    const std::vector<std::int64_t>& round_replicate) {
  if (round_replicate.empty()) return values;
  if (round_replicate.size() != values.size()) {
    throw std::invalid_argument("replicate_means: " + std::to_string(round_replicate.size()) +
                                " replicate indices for " + std::to_string(values.size()) + " rounds");
  }
  std::vector<double> means;
  std::size_t begin = 0;
  for (std::size_t end = 1; end <= values.size(); ++end) {
    if (end < values.size() && round_replicate[end] == round_replicate[begin]) continue;
    if (end < values.size() && round_replicate[end] < round_replicate[begin]) {
      throw std::invalid_argument("replicate_means: replicate indices decrease at round " + std::to_string(end));
    }
    const std::vector<double> group(values.begin() + static_cast<std::ptrdiff_t>(begin),
                                    values.begin() + static_cast<std::ptrdiff_t>(end));
    means.push_back(std::exp(log_moments(group, "replicate_means").mean));
    begin = end;
  }
  return means.size() < 2 ? values : means;
}

RoundEstimate summarize_rounds(const std::vector<double>& values, const std::vector<std::int64_t>& round_replicate) {
  const auto draws = replicate_means(values, round_replicate);
  const auto moments = log_moments(draws, "summarize_rounds");
  RoundEstimate estimate;
  estimate.rounds = static_cast<std::int64_t>(values.size());
  estimate.value = std::exp(moments.mean);
  const double half_width =
      draws.size() > 1 ? t_critical(moments.count - 1.0) * std::sqrt(moments.variance / moments.count) : 0.0;
  estimate.ci_low = std::exp(moments.mean - half_width);
  estimate.ci_high = std::exp(moments.mean + half_width);
  estimate.relative_ci_half_width = (estimate.ci_high - estimate.ci_low) / 2.0 / estimate.value;
  return estimate;
}

Ratio paired_round_ratio(const std::vector<double>& reference, const std::vector<double>& values,
                         const std::vector<std::int64_t>& round_replicate) {
  if (reference.size() != values.size()) {
    throw std::invalid_argument("paired_round_ratio: " + std::to_string(reference.size()) + " reference rounds vs " +
                                std::to_string(values.size()));
  }
  std::vector<double> ratios;
  ratios.reserve(values.size());
  for (std::size_t round = 0; round < values.size(); ++round) {
    ratios.push_back(values[round] > 0.0 ? reference[round] / values[round] : std::numeric_limits<double>::quiet_NaN());
  }
  const auto estimate = summarize_rounds(ratios, round_replicate);
  return {estimate.value, estimate.ci_low, estimate.ci_high};
}

RoundComparison compare_rounds(const std::vector<double>& base_rounds, const std::vector<double>& current_rounds,
                               const std::vector<std::int64_t>& base_replicate,
                               const std::vector<std::int64_t>& current_replicate) {
  const auto base = replicate_means(base_rounds, base_replicate);
  const auto current = replicate_means(current_rounds, current_replicate);
  const auto b = log_moments(base, "compare_rounds baseline");
  const auto c = log_moments(current, "compare_rounds current");
  RoundComparison result;
  result.base_draws = static_cast<std::int64_t>(base.size());
  result.current_draws = static_cast<std::int64_t>(current.size());
  const double difference = c.mean - b.mean;
  result.ratio.value = std::exp(difference);
  if (base.size() < 2 || current.size() < 2) {
    result.ratio.ci_low = 0.0;
    result.ratio.ci_high = std::numeric_limits<double>::infinity();
    return result;
  }
  const double base_term = b.variance / b.count;
  const double current_term = c.variance / c.count;
  const double standard_error = std::sqrt(base_term + current_term);
  if (standard_error == 0.0) {
    result.ratio.ci_low = result.ratio.ci_high = result.ratio.value;
    result.p_value = difference == 0.0 ? 1.0 : 0.0;
    return result;
  }
  // Welch-Satterthwaite degrees of freedom.
  const double degrees = std::pow(base_term + current_term, 2) /
                         (std::pow(base_term, 2) / (b.count - 1.0) + std::pow(current_term, 2) / (c.count - 1.0));
  const double half_width = t_critical(degrees) * standard_error;
  result.ratio.ci_low = std::exp(difference - half_width);
  result.ratio.ci_high = std::exp(difference + half_width);
  result.p_value = detail::student_t_two_sided_p(difference / standard_error, degrees);
  return result;
}

std::vector<double> per_probe_step_times(const Rounds& rounds) {
  if (rounds.probe_s.size() != rounds.step_time_s.size()) {
    throw std::invalid_argument("per_probe_step_times: a probe time is needed for every round");
  }
  std::vector<double> normalised;
  for (std::size_t round = 0; round < rounds.step_time_s.size(); ++round) {
    normalised.push_back(rounds.step_time_s[round] / rounds.probe_s[round]);
  }
  return normalised;
}

double student_t_p_value(double t, double degrees_of_freedom) {
  return detail::student_t_two_sided_p(t, degrees_of_freedom);
}

double student_t_critical(double two_sided_p, double degrees_of_freedom) {
  return detail::student_t_critical_value(two_sided_p, degrees_of_freedom);
}

double variance_ratio_p_value(double ratio, double numerator_degrees, double denominator_degrees) {
  return detail::f_upper_tail(ratio, numerator_degrees, denominator_degrees);
}

}  // namespace ampbench::reports
