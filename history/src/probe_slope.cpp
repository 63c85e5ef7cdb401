#include "ampbench/history/probe_slope.h"

#include <algorithm>
#include <cmath>

#include "ampbench/reports/stats.h"

namespace ampbench::history {

std::optional<ProbeSlope> fit_probe_slope(const std::vector<ProbeAndStep>& history) {
  if (history.size() < 4) return std::nullopt;
  ProbeSlope fit;
  fit.runs = history.size();
  const double n = static_cast<double>(fit.runs);
  fit.min_log_probe = history.front().log_probe;
  fit.max_log_probe = history.front().log_probe;
  for (const auto& run : history) {
    fit.mean_log_probe += run.log_probe / n;
    fit.mean_log_step += run.log_step / n;
    fit.min_log_probe = std::min(fit.min_log_probe, run.log_probe);
    fit.max_log_probe = std::max(fit.max_log_probe, run.log_probe);
  }
  double products = 0.0;
  for (const auto& run : history) {
    const double dx = run.log_probe - fit.mean_log_probe;
    fit.probe_squares += dx * dx;
    products += dx * (run.log_step - fit.mean_log_step);
  }
  if (!(fit.probe_squares > 0.0)) return std::nullopt;
  fit.slope = products / fit.probe_squares;
  double residuals = 0.0;
  for (const auto& run : history) {
    const double predicted = fit.mean_log_step + fit.slope * (run.log_probe - fit.mean_log_probe);
    residuals += std::pow(run.log_step - predicted, 2);
  }
  fit.residual_variance = residuals / (n - 2.0);
  fit.slope_error = std::sqrt(fit.residual_variance / fit.probe_squares);
  return fit;
}

bool slope_applies(const ProbeSlope& fit, double log_probe) {
  const double uncertainty = reports::student_t_critical(0.05, static_cast<double>(fit.runs) - 2.0) * fit.slope_error;
  return uncertainty <= kMaxSlopeUncertainty && log_probe >= fit.min_log_probe && log_probe <= fit.max_log_probe;
}

SlopePrediction predict_at_probe(const ProbeSlope& fit, const ProbeAndStep& run, double extra_log_variance) {
  const double n = static_cast<double>(fit.runs);
  const double dx = run.log_probe - fit.mean_log_probe;
  const double residual = run.log_step - (fit.mean_log_step + fit.slope * dx);
  // One more run's prediction interval: the residual spread (the history's runs' values, each with
  // its own sampling error in it), the line's own uncertainty at this probe, and the run's own
  // variance beyond what its history's runs had.
  const double scale =
      std::sqrt(fit.residual_variance * (1.0 + 1.0 / n + dx * dx / fit.probe_squares) + extra_log_variance);
  SlopePrediction out;
  out.ratio = std::exp(residual);
  out.log_scale = scale;
  out.degrees = n - 2.0;
  if (scale == 0.0) {
    out.p_value = residual == 0.0 ? 1.0 : 0.0;
  } else {
    out.p_value = reports::student_t_p_value(residual / scale, out.degrees);
  }
  return out;
}

}  // namespace ampbench::history
