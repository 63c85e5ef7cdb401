// How a cell's step time follows the machine probe, fitted over the cell's own history.
//
// The per-probe figure divides the whole probe out, as if every step moved as far as the probe;
// across runs they did not: over 30 identical runs on a shared 2-core AMD EPYC a cell's log
// step time moved 0.51-0.99 times as far as the log probe (SimpleCNN 0.58-0.72, the transformer's
// FP16 0.51; docs/performance.md, "The gate judges with each cell's own slope"), so per probe a run
// on a faster state of the host read slower, and the gate had to ask the raw time to confirm. Fitted
// per cell, the slope takes out what the probe explains and no more: the residual spread of those
// runs fell to 2.2-4.0% from 3.1-5.3% per probe and 4.9-11.9% raw.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

namespace ampbench::history {

// One run of the history: log(probe) and log(step time), the probe being the raw step time over
// the per-probe one.
struct ProbeAndStep {
  double log_probe = 0.0;
  double log_step = 0.0;
};

// Least squares of log step on log probe: log_step = mean_log_step + slope * (log_probe - mean_log_probe).
struct ProbeSlope {
  double slope = 0.0;
  double slope_error = 0.0;  // its standard error
  double mean_log_probe = 0.0;
  double mean_log_step = 0.0;
  double residual_variance = 0.0;  // SSR / (runs - 2)
  double probe_squares = 0.0;      // sum of (log_probe - mean)^2
  double min_log_probe = 0.0;
  double max_log_probe = 0.0;
  std::size_t runs = 0;
};

// The slope must be known to within this at 95% (t quantile times its standard error) for the gate
// to judge with it: a history whose probe hardly moved cannot say how the cell follows it.
inline constexpr double kMaxSlopeUncertainty = 0.5;

// nullopt for fewer than 4 runs or a probe that never moved.
[[nodiscard]] std::optional<ProbeSlope> fit_probe_slope(const std::vector<ProbeAndStep>& history);

// Whether the fit can judge a run with this probe: the slope known to kMaxSlopeUncertainty, and the
// probe within the range the history's runs saw (outside it the slope is not measured).
[[nodiscard]] bool slope_applies(const ProbeSlope& fit, double log_probe);

struct SlopePrediction {
  double ratio = 1.0;  // the run's step time over what the fit predicts at its probe
  double p_value = 1.0;
  double log_scale = 0.0;  // the prediction's standard deviation on logs
  double degrees = 0.0;    // of its t distribution
};

// The run against the fit's prediction interval for one more run at its probe, widened by
// `extra_log_variance` (the run's own variance beyond its history runs'). Student's t with runs - 2
// degrees of freedom. No floor under the residual spread: the runs' own variances that are stored
// are their per-probe figures', which hold the probe's round-to-round noise that the fit at the
// run's mean probe does not; as a floor they bound the residual spread in 24-65% of the checks of
// three stored series, where the changes the checks saw spread 0.76-0.90 of the spread stated
// (docs/performance.md, "The gate's spread, calibrated").
[[nodiscard]] SlopePrediction predict_at_probe(const ProbeSlope& fit, const ProbeAndStep& run,
                                               double extra_log_variance);

}  // namespace ampbench::history
