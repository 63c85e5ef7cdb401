// The statistics in stats.h against values computed by hand (or, for the distributions, in closed
// form and by numerical integration; see the comments by each value).
#include "ampbench/reports/stats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

namespace {

using namespace ampbench::reports;

std::vector<double> one_to(int n) {
  std::vector<double> values;
  for (int i = 1; i <= n; ++i) values.push_back(i);
  return values;
}

TEST(Median, OddAndEvenCounts) {
  EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2.0);
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(median({7}), 7.0);
}

TEST(Median, RejectsNoSamplesAndNonFiniteSamples) {
  EXPECT_THROW((void)median({}), std::invalid_argument);
  EXPECT_THROW((void)median({1.0, std::numeric_limits<double>::quiet_NaN()}), std::invalid_argument);
}

TEST(Quantile, LinearInterpolationType7) {
  // h = (n - 1) q: 0.3 -> 1 + 0.3 (2 - 1); 2.7 -> 3 + 0.7 (4 - 3).
  EXPECT_DOUBLE_EQ(quantile({4, 3, 2, 1}, 0.1), 1.3);
  EXPECT_DOUBLE_EQ(quantile({4, 3, 2, 1}, 0.9), 3.7);
  EXPECT_DOUBLE_EQ(quantile({4, 3, 2, 1}, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(quantile({4, 3, 2, 1}, 1.0), 4.0);
  EXPECT_THROW((void)quantile({1, 2}, 1.5), std::invalid_argument);
}

TEST(MedianCiRanks, ExactBinomialRanksMatchTheTables) {
  // n = 10: P(B <= 1) = 11/1024 <= 2.5% < P(B <= 2) = 56/1024, so l = 2, u = 9.
  EXPECT_EQ(median_ci_ranks(10).lower, 2);
  EXPECT_EQ(median_ci_ranks(10).upper, 9);
  EXPECT_EQ(median_ci_ranks(20).lower, 6);  // P(B <= 5) = 0.0207, P(B <= 6) = 0.0577
  EXPECT_EQ(median_ci_ranks(20).upper, 15);
  EXPECT_EQ(median_ci_ranks(100).lower, 40);  // P(B <= 39) = 0.0176, P(B <= 40) = 0.0284
  EXPECT_EQ(median_ci_ranks(100).upper, 61);
  EXPECT_EQ(median_ci_ranks(1000).lower, 469);
}

TEST(MedianCiRanks, SixSamplesIsTheSmallestWithA95PercentInterval) {
  // n = 6: P(B = 0) = 1/64 <= 2.5%, coverage 62/64. n = 5: 1/32 > 2.5%, so min/max below 95%.
  EXPECT_EQ(median_ci_ranks(6).lower, 1);
  EXPECT_EQ(median_ci_ranks(5).lower, 1);
  EXPECT_EQ(median_ci_ranks(5).upper, 5);
  EXPECT_EQ(median_ci_ranks(1).lower, 1);
  EXPECT_EQ(median_ci_ranks(1).upper, 1);
}

TEST(MedianCiRanks, NormalApproximationAboveTheExactLimit) {
  // floor(n/2 + 1/2 - 1.96 sqrt(n) / 2): 469 for n = 1001 (exact: 470), 2431 for n = 5000 (exact too).
  EXPECT_EQ(median_ci_ranks(1001).lower, 469);
  EXPECT_EQ(median_ci_ranks(1001).upper, 533);
  EXPECT_EQ(median_ci_ranks(5000).lower, 2431);
}

TEST(Summarize, OneToTen) {
  const auto summary = summarize({10, 9, 8, 7, 6, 5, 4, 3, 2, 1});
  EXPECT_EQ(summary.count, 10);
  EXPECT_DOUBLE_EQ(summary.median, 5.5);
  EXPECT_DOUBLE_EQ(summary.ci_low, 2.0);
  EXPECT_DOUBLE_EQ(summary.ci_high, 9.0);
  EXPECT_DOUBLE_EQ(summary.p10, 1.9);
  EXPECT_DOUBLE_EQ(summary.p90, 9.1);
  EXPECT_DOUBLE_EQ(summary.mean, 5.5);
  EXPECT_NEAR(summary.stddev, 3.0276503540974917, 1e-12);  // sqrt(82.5 / 9)
  EXPECT_DOUBLE_EQ(summary.relative_ci_half_width, 3.5 / 5.5);
}

TEST(Summarize, FewSamplesFallBackToMinAndMax) {
  const auto summary = summarize({3, 1, 2});
  EXPECT_DOUBLE_EQ(summary.ci_low, 1.0);
  EXPECT_DOUBLE_EQ(summary.ci_high, 3.0);
  const auto single = summarize({4});
  EXPECT_DOUBLE_EQ(single.stddev, 0.0);
  EXPECT_DOUBLE_EQ(single.relative_ci_half_width, 0.0);
}

TEST(MedianRatio, ValueIsTheRatioOfMediansAndTheIntervalBracketsIt) {
  const std::vector<double> fp32 = {2.0, 2.2, 1.9, 2.1, 2.05, 1.95, 2.15, 2.0, 1.98, 2.02};
  const std::vector<double> amp = {1.0, 1.1, 0.95, 1.05, 1.02, 0.98, 1.07, 1.0, 0.99, 1.01};
  const Ratio ratio = median_ratio(fp32, amp);
  EXPECT_DOUBLE_EQ(ratio.value, 2.01 / 1.005);
  EXPECT_LT(ratio.ci_low, ratio.value);
  EXPECT_GT(ratio.ci_high, ratio.value);
  EXPECT_GT(ratio.ci_low, 1.8);
  EXPECT_LT(ratio.ci_high, 2.2);
}

TEST(MedianRatio, SameSeedSameIntervalAndConstantSamplesGiveAPoint) {
  const std::vector<double> a = {1, 5, 2, 8, 3, 9, 4};
  const std::vector<double> b = {2, 3, 2, 4, 3, 5};
  const Ratio first = median_ratio(a, b, 42);
  const Ratio second = median_ratio(a, b, 42);
  EXPECT_EQ(first.ci_low, second.ci_low);
  EXPECT_EQ(first.ci_high, second.ci_high);
  const Ratio point = median_ratio({3, 3, 3}, {2, 2});
  EXPECT_DOUBLE_EQ(point.value, 1.5);
  EXPECT_DOUBLE_EQ(point.ci_low, 1.5);
  EXPECT_DOUBLE_EQ(point.ci_high, 1.5);
  EXPECT_THROW((void)median_ratio({1}, {0}), std::invalid_argument);
  EXPECT_THROW((void)median_ratio({}, {1}), std::invalid_argument);
}

// A numerics pass with these eval losses at steps 0, 2, 4, ...
Numerics pass_with(std::vector<double> eval_loss) {
  Numerics numerics;
  for (std::size_t i = 0; i < eval_loss.size(); ++i) numerics.eval_steps.push_back(2 * static_cast<std::int64_t>(i));
  numerics.steps = numerics.eval_steps.back();
  numerics.run.eval_loss = std::move(eval_loss);
  return numerics;
}

// FP32 at 2.0 after step 0; the floor run 1% and 2% away at the last two of 8 evaluations after
// step 0 (the final quarter): final_floor = (0.01 + 0.02) / 2 = 0.015.
Numerics fp32_pass() {
  Numerics fp32 = pass_with({4, 2, 2, 2, 2, 2, 2, 2, 2});
  fp32.floor = pass_with({4, 2, 2, 2, 2, 2, 2, 2.02, 2.04}).run;
  return fp32;
}

TEST(Divergence, WithinTheNoiseFloor) {
  // d = 0.005 and 0.01 at the last two evaluations: mean 0.0075 = 0.5 x the floor. The 5% at
  // evaluation 3 counts for the maximum only.
  const auto result = compute_divergence(fp32_pass(), pass_with({4, 2, 2, 2.1, 2, 2, 2, 2.01, 2.02}));
  EXPECT_EQ(result.reference_mode, "fp32");
  EXPECT_EQ(result.steps, 16);
  EXPECT_EQ(result.final_evaluations, 2);
  EXPECT_NEAR(result.final_relative_difference, 0.0075, 1e-12);
  EXPECT_NEAR(result.final_floor, 0.015, 1e-12);
  EXPECT_NEAR(result.ratio_to_floor, 0.5, 1e-9);
  EXPECT_NEAR(result.max_relative_difference, 0.05, 1e-12);
  EXPECT_DOUBLE_EQ(result.floor_multiple, kFloorMultiple);
  EXPECT_EQ(result.verdict, DivergenceVerdict::kWithinFloor);
}

TEST(Divergence, AboveTheFloorButNotThreeTimesIt) {
  // d = 0.02 and 0.03: mean 0.025 = 1.667 x the floor.
  const auto result = compute_divergence(fp32_pass(), pass_with({4, 2, 2, 2, 2, 2, 2, 2.04, 2.06}));
  EXPECT_NEAR(result.ratio_to_floor, 0.025 / 0.015, 1e-9);
  EXPECT_EQ(result.verdict, DivergenceVerdict::kAboveFloor);
}

TEST(Divergence, BeyondThreeTimesTheFloorDiverged) {
  // d = 0.05 at both: 3.33 x the floor. Lower AMP losses count the same as higher ones.
  const auto result = compute_divergence(fp32_pass(), pass_with({4, 2, 2, 2, 2, 2, 2, 1.9, 2.1}));
  EXPECT_NEAR(result.final_relative_difference, 0.05, 1e-12);
  EXPECT_NEAR(result.ratio_to_floor, 0.05 / 0.015, 1e-9);
  EXPECT_EQ(result.verdict, DivergenceVerdict::kDiverged);
}

TEST(Divergence, TheFinalQuarterLeavesOutStepZero) {
  // 16 evaluations after step 0: the last 4 are averaged; d = 0.04 at each of them only.
  std::vector<double> fp32_loss(17, 1.0);
  std::vector<double> floor_loss(17, 1.0);
  std::vector<double> amp_loss(17, 1.0);
  for (std::size_t i = 13; i < 17; ++i) {
    floor_loss[i] = 1.01;
    amp_loss[i] = 1.04;
  }
  Numerics fp32 = pass_with(fp32_loss);
  fp32.floor = pass_with(floor_loss).run;
  const auto result = compute_divergence(fp32, pass_with(amp_loss));
  EXPECT_EQ(result.final_evaluations, 4);
  EXPECT_NEAR(result.final_relative_difference, 0.04, 1e-12);
  EXPECT_NEAR(result.final_floor, 0.01, 1e-12);
  EXPECT_EQ(result.verdict, DivergenceVerdict::kDiverged);
}

TEST(Divergence, AFloorBelowTheMinimumCountsAsTheMinimum) {
  // The floor run lands exactly on FP32: final_floor 0, and the ratio is against 0.01%.
  Numerics fp32 = pass_with({4, 2, 2, 2, 2});
  fp32.floor = fp32.run;
  const auto close = compute_divergence(fp32, pass_with({4, 2, 2, 2, 2.0001}));
  EXPECT_DOUBLE_EQ(close.final_floor, 0.0);
  EXPECT_NEAR(close.ratio_to_floor, 0.5, 1e-6);  // 5e-5 / 1e-4
  EXPECT_EQ(close.verdict, DivergenceVerdict::kWithinFloor);
  const auto far = compute_divergence(fp32, pass_with({4, 2, 2, 2, 2.001}));
  EXPECT_NEAR(far.ratio_to_floor, 5.0, 1e-6);  // 5e-4 / 1e-4
  EXPECT_EQ(far.verdict, DivergenceVerdict::kDiverged);
}

TEST(Divergence, NonFiniteAmpLossIsItsOwnVerdict) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const auto result = compute_divergence(fp32_pass(), pass_with({4, 2, nan, 2, 2, 2, 2, 2, 2}));
  EXPECT_EQ(result.verdict, DivergenceVerdict::kNonFiniteLoss);
  // Even when the final evaluations are close: a NaN anywhere in the pass is not a rounding matter.
  EXPECT_NEAR(result.final_relative_difference, 0.0, 1e-12);
  // A loss that FP32 itself lost is not the AMP run's fault.
  Numerics fp32 = fp32_pass();
  fp32.run.eval_loss[2] = nan;
  EXPECT_EQ(compute_divergence(fp32, pass_with({4, 2, nan, 2, 2, 2, 2, 2, 2})).verdict,
            DivergenceVerdict::kWithinFloor);
}

TEST(Divergence, NeedsTheFloorAndTheSameEvaluations) {
  Numerics amp = pass_with({4, 2, 2, 2, 2, 2, 2, 2, 2});
  Numerics no_floor = fp32_pass();
  no_floor.floor.reset();
  EXPECT_THROW((void)compute_divergence(no_floor, amp), std::invalid_argument);
  amp.eval_steps[3] = 7;
  EXPECT_THROW((void)compute_divergence(fp32_pass(), amp), std::invalid_argument);
  EXPECT_THROW((void)compute_divergence(fp32_pass(), pass_with({4, 2, 2})), std::invalid_argument);
}

TEST(MannWhitneyU, ExactForSmallSamplesWithoutTies) {
  // scipy.stats.mannwhitneyu's documented example (males vs females): U = 17, p = 1/9; checked
  // by enumerating all 126 splits.
  const auto result = mann_whitney_u({19, 22, 16, 29, 24}, {20, 11, 17, 12});
  EXPECT_TRUE(result.exact);
  EXPECT_DOUBLE_EQ(result.u, 17.0);
  EXPECT_NEAR(result.p_value, 1.0 / 9.0, 1e-12);
  // Complete separation of 3 and 3: U = 0, P = 2 / C(6, 3) = 0.1.
  const auto separated = mann_whitney_u({1, 2, 3}, {4, 5, 6});
  EXPECT_DOUBLE_EQ(separated.u, 0.0);
  EXPECT_NEAR(separated.p_value, 0.1, 1e-12);
}

TEST(MannWhitneyU, NormalApproximationWithTies) {
  // x = 0..9, y = 5..15: U counts pairs x > y with ties as 1/2 = 12.5. Tie groups 5..9 (t = 2 each,
  // sum t^3 - t = 30); var = 10 * 11 / 12 * (22 - 30 / 420); z = (97.5 - 55 - 0.5) / sqrt(var).
  std::vector<double> x;
  std::vector<double> y;
  for (int i = 0; i <= 9; ++i) x.push_back(i);
  for (int i = 5; i <= 15; ++i) y.push_back(i);
  const auto result = mann_whitney_u(x, y);
  EXPECT_FALSE(result.exact);
  EXPECT_DOUBLE_EQ(result.u, 12.5);
  EXPECT_NEAR(result.p_value, 0.0030528677966902935, 1e-12);
}

TEST(MannWhitneyU, IdenticalSamplesGiveNoEvidence) {
  EXPECT_DOUBLE_EQ(mann_whitney_u({1, 1, 1}, {1, 1, 1}).p_value, 1.0);
  const auto large = one_to(30);
  EXPECT_GT(mann_whitney_u(large, large).p_value, 0.99);
}

}  // namespace
