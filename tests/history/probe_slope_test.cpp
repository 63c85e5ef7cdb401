// The cell's slope on the probe, by hand: four runs, least squares, and the prediction interval of
// one more run with Student's t on runs - 2 degrees of freedom.
#include <gtest/gtest.h>

#include <cmath>

#include "ampbench/history/probe_slope.h"

namespace {

using ampbench::history::fit_probe_slope;
using ampbench::history::predict_at_probe;
using ampbench::history::ProbeAndStep;
using ampbench::history::slope_applies;

// x = 0, 1, 2, 3 and y = 1, 3, 5, 7.5: means 1.5 and 4.125, Sxx 5, Sxy 10.75, slope 2.15; fitted
// 0.9, 3.05, 5.2, 7.35, residuals 0.1, -0.05, -0.2, 0.15, SSR 0.075, s^2 0.0375 on 2 degrees of
// freedom, the slope's standard error sqrt(0.0375 / 5) = 0.0866.
const std::vector<ProbeAndStep> kRuns{{0.0, 1.0}, {1.0, 3.0}, {2.0, 5.0}, {3.0, 7.5}};

TEST(ProbeSlope, FitsByLeastSquares) {
  const auto fit = fit_probe_slope(kRuns);
  ASSERT_TRUE(fit.has_value());
  EXPECT_NEAR(fit->slope, 2.15, 1e-12);
  EXPECT_NEAR(fit->mean_log_probe, 1.5, 1e-12);
  EXPECT_NEAR(fit->mean_log_step, 4.125, 1e-12);
  EXPECT_NEAR(fit->residual_variance, 0.0375, 1e-12);
  EXPECT_NEAR(fit->slope_error, std::sqrt(0.0375 / 5.0), 1e-12);
  EXPECT_EQ(fit->runs, 4u);
}

TEST(ProbeSlope, PredictsOneMoreRun) {
  const auto fit = *fit_probe_slope(kRuns);
  // At the mean probe, 0.5 above the line: variance 0.0375 * (1 + 1/4) = 0.046875, t = 2.3094;
  // on 2 degrees of freedom P(|T| >= t) = 1 - t / sqrt(t^2 + 2) = 0.1473.
  const auto at_mean = predict_at_probe(fit, {1.5, 4.625}, 0.0);
  EXPECT_NEAR(at_mean.ratio, std::exp(0.5), 1e-12);
  const double t = 0.5 / std::sqrt(0.046875);
  EXPECT_NEAR(at_mean.p_value, 1.0 - t / std::sqrt(t * t + 2.0), 1e-6);
  // Away from the mean the slope's own uncertainty widens it: at x = 3, (x - mean)^2 / Sxx = 0.45.
  const auto at_end = predict_at_probe(fit, {3.0, 7.35 + 0.5}, 0.0);
  const double t_end = 0.5 / std::sqrt(0.0375 * (1.25 + 0.45));
  EXPECT_NEAR(at_end.p_value, 1.0 - t_end / std::sqrt(t_end * t_end + 2.0), 1e-6);
  // The run's own variance beyond its history's adds to it: 0.046875 + 0.02.
  const auto noisier = predict_at_probe(fit, {1.5, 4.625}, 0.02);
  const double t_noisier = 0.5 / std::sqrt(0.066875);
  EXPECT_NEAR(noisier.p_value, 1.0 - t_noisier / std::sqrt(t_noisier * t_noisier + 2.0), 1e-6);
}

TEST(ProbeSlope, AppliesOnlyWhereTheHistoryMeasuredIt) {
  const auto fit = *fit_probe_slope(kRuns);
  // t(0.975, 2) = 4.303 times 0.0866 = 0.373, within 0.5; the probe within [0, 3].
  EXPECT_TRUE(slope_applies(fit, 2.5));
  EXPECT_FALSE(slope_applies(fit, 3.1));
  EXPECT_FALSE(slope_applies(fit, -0.1));
  // The same spread around a slope measured over a tenth of the probe's range: its error is ten
  // times as large (0.866), too uncertain to judge with.
  std::vector<ProbeAndStep> narrow;
  for (const auto& run : kRuns) narrow.push_back({run.log_probe / 10.0, run.log_step});
  EXPECT_FALSE(slope_applies(*fit_probe_slope(narrow), 0.15));
}

TEST(ProbeSlope, NeedsFourRunsAndAProbeThatMoved) {
  EXPECT_FALSE(fit_probe_slope({kRuns.begin(), kRuns.begin() + 3}).has_value());
  EXPECT_FALSE(fit_probe_slope({{1.0, 1.0}, {1.0, 2.0}, {1.0, 3.0}, {1.0, 4.0}}).has_value());
}

}  // namespace
