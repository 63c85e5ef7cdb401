// Estimates over interleaved rounds against hand-computed values (see stats.h for the formulas).
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "ampbench/reports/stats.h"
#include "stats/distributions.h"

namespace {

using namespace ampbench::reports;

TEST(StudentTCriticalValue, MatchesTables) {
  EXPECT_NEAR(detail::student_t_critical_value(0.05, 1), 12.7062, 1e-3);
  EXPECT_NEAR(detail::student_t_critical_value(0.05, 4), 2.7764, 1e-4);
  EXPECT_NEAR(detail::student_t_critical_value(0.05, 30), 2.0423, 1e-4);
  EXPECT_NEAR(detail::student_t_critical_value(0.05, 1e6), 1.9600, 1e-3);
}

TEST(VarianceRatioPValue, MatchesClosedFormsAndTables) {
  // Two numerator degrees: P(F >= f) = (1 + 2 f / d2)^(-d2 / 2), here 1.6^-5.
  EXPECT_NEAR(variance_ratio_p_value(3.0, 2, 10), std::pow(1.6, -5.0), 1e-12);
  // One numerator degree: F is T squared.
  EXPECT_NEAR(variance_ratio_p_value(2.7764 * 2.7764, 1, 4), 0.05, 1e-5);
  // F(0.95; 4, 80) = 2.4859 in the tables; equal degrees give 1/2 at a ratio of 1.
  EXPECT_NEAR(variance_ratio_p_value(2.4859, 4, 80), 0.05, 1e-4);
  EXPECT_NEAR(variance_ratio_p_value(1.0, 4, 4), 0.5, 1e-12);
  EXPECT_DOUBLE_EQ(variance_ratio_p_value(0.0, 4, 80), 1.0);
}

// {1, 2, 4}: logs 0, ln 2, 2 ln 2; mean ln 2 (geometric mean 2), sd ln 2; t(0.975, 2) = 4.3027;
// half-width 4.3027 ln 2 / sqrt 3 = 1.72186, so the interval is 2 exp(-+1.72186) = [0.3575, 11.190].
TEST(SummarizeRounds, GeometricMeanWithATIntervalOnLogs) {
  const auto estimate = summarize_rounds({1.0, 2.0, 4.0});
  EXPECT_EQ(estimate.rounds, 3);
  EXPECT_NEAR(estimate.value, 2.0, 1e-12);
  EXPECT_NEAR(estimate.ci_low, 0.35747, 1e-4);
  EXPECT_NEAR(estimate.ci_high, 11.1897, 1e-3);
  EXPECT_NEAR(estimate.relative_ci_half_width, (11.1897 - 0.35747) / 4.0, 1e-3);
}

TEST(SummarizeRounds, OneRoundIsAPointAndBadValuesAreRefused) {
  const auto one = summarize_rounds({0.25});
  EXPECT_DOUBLE_EQ(one.ci_low, 0.25);
  EXPECT_DOUBLE_EQ(one.ci_high, 0.25);
  EXPECT_THROW((void)summarize_rounds({}), std::invalid_argument);
  EXPECT_THROW((void)summarize_rounds({1.0, 0.0}), std::invalid_argument);
  EXPECT_THROW((void)summarize_rounds({1.0, -2.0}), std::invalid_argument);
  EXPECT_THROW((void)summarize_rounds({1.0, NAN}), std::invalid_argument);
}

// Drift that moves both modes alike cancels in the paired ratio: a constant 2x in rounds that
// differ 4x from one another is exactly 2x with a point interval.
TEST(PairedRoundRatio, DriftCancelsInEachPair) {
  const auto ratio = paired_round_ratio({2.0, 8.0, 4.0}, {1.0, 4.0, 2.0});
  EXPECT_DOUBLE_EQ(ratio.value, 2.0);
  EXPECT_DOUBLE_EQ(ratio.ci_low, 2.0);
  EXPECT_DOUBLE_EQ(ratio.ci_high, 2.0);
  EXPECT_THROW((void)paired_round_ratio({1.0, 2.0}, {1.0}), std::invalid_argument);
}

// base {1, 2, 4}, current {2, 4, 8}: log means differ by ln 2, each log variance (ln 2)^2, so the
// standard error is ln 2 sqrt(2/3) = 0.56595, t = 1.2247 on 4 Welch degrees of freedom (p = 0.2876),
// and the interval exp(ln 2 -+ 2.7764 x 0.56595) = [0.4159, 9.617].
TEST(CompareRounds, WelchOnLogs) {
  const auto result = compare_rounds({1.0, 2.0, 4.0}, {2.0, 4.0, 8.0});
  EXPECT_NEAR(result.ratio.value, 2.0, 1e-12);
  EXPECT_NEAR(result.p_value, 0.2876, 1e-3);
  EXPECT_NEAR(result.ratio.ci_low, 0.4159, 1e-3);
  EXPECT_NEAR(result.ratio.ci_high, 9.617, 1e-2);
}

TEST(CompareRounds, NoSpreadIsDecidedByTheDifferenceAlone) {
  EXPECT_EQ(compare_rounds({1.0, 1.0}, {1.0, 1.0}).p_value, 1.0);
  EXPECT_EQ(compare_rounds({1.0, 1.0}, {1.1, 1.1}).p_value, 0.0);
  const auto single = compare_rounds({1.0}, {1.2});
  EXPECT_EQ(single.p_value, 1.0);  // one round a side: nothing to judge the change against
  EXPECT_TRUE(std::isinf(single.ratio.ci_high));
}

}  // namespace

namespace replicates {

using namespace ampbench::reports;

// Three worker processes of two rounds each: {1, 4} {2, 8} {4, 16} have geometric means 2, 4, 8,
// so the estimate is that of {2, 4, 8}: geometric mean 4, interval 4 exp(-+1.72186) (as above).
TEST(SummarizeRounds, OverReplicatesTheProcessesAreTheDraws) {
  const std::vector<std::int64_t> replicate{0, 0, 1, 1, 2, 2};
  const auto means = replicate_means({1.0, 4.0, 2.0, 8.0, 4.0, 16.0}, replicate);
  ASSERT_EQ(means.size(), 3u);
  EXPECT_NEAR(means[0], 2.0, 1e-12);
  EXPECT_NEAR(means[1], 4.0, 1e-12);
  EXPECT_NEAR(means[2], 8.0, 1e-12);
  const auto estimate = summarize_rounds({1.0, 4.0, 2.0, 8.0, 4.0, 16.0}, replicate);
  EXPECT_EQ(estimate.rounds, 6);
  EXPECT_NEAR(estimate.value, 4.0, 1e-12);
  EXPECT_NEAR(estimate.ci_low, 4.0 * std::exp(-1.72186), 1e-3);
  EXPECT_NEAR(estimate.ci_high, 4.0 * std::exp(1.72186), 1e-2);
}

// Rounds that vary 4x inside every process but processes that agree: a point interval. Processes
// whose rounds agree but whose levels differ: a wide one, where over rounds it would be narrow.
TEST(SummarizeRounds, ProcessLevelsWidenTheIntervalRoundSpreadInsideOneDoesNot) {
  const std::vector<std::int64_t> replicate{0, 0, 1, 1, 2, 2};
  const auto agreeing = summarize_rounds({1.0, 4.0, 4.0, 1.0, 1.0, 4.0}, replicate);
  EXPECT_DOUBLE_EQ(agreeing.ci_low, agreeing.ci_high);
  const auto levels = summarize_rounds({1.0, 1.0, 2.0, 2.0, 4.0, 4.0}, replicate);
  const auto over_rounds = summarize_rounds({1.0, 1.0, 2.0, 2.0, 4.0, 4.0});
  EXPECT_GT(levels.relative_ci_half_width, 2.0 * over_rounds.relative_ci_half_width);
}

TEST(ReplicateMeans, OneReplicateLeavesTheRoundsAndBadIndicesAreRefused) {
  EXPECT_EQ(replicate_means({1.0, 2.0}, {}), (std::vector<double>{1.0, 2.0}));
  EXPECT_EQ(replicate_means({1.0, 2.0}, {0, 0}), (std::vector<double>{1.0, 2.0}));
  EXPECT_THROW((void)replicate_means({1.0, 2.0}, {0}), std::invalid_argument);
  EXPECT_THROW((void)replicate_means({1.0, 2.0, 3.0}, {1, 0, 0}), std::invalid_argument);
}

// Per round 2, 2, 4, 4 over replicates {0, 0, 1, 1}: replicate ratios 2 and 4, geometric mean 2 sqrt 2.
TEST(PairedRoundRatio, PairedInsideEachReplicateThenOverThem) {
  const auto ratio = paired_round_ratio({2.0, 8.0, 4.0, 16.0}, {1.0, 4.0, 1.0, 4.0}, {0, 0, 1, 1});
  EXPECT_NEAR(ratio.value, 2.0 * std::sqrt(2.0), 1e-12);
  EXPECT_LT(ratio.ci_low, 2.0);
  EXPECT_GT(ratio.ci_high, 4.0);
}

// The replicate means {2, 4, 8} vs {4, 8, 16} are CompareRounds.WelchOnLogs's case.
TEST(CompareRounds, OverReplicatesWhenARunHasThem) {
  const auto result = compare_rounds({1.0, 4.0, 2.0, 8.0, 4.0, 16.0}, {2.0, 8.0, 4.0, 16.0, 8.0, 32.0},
                                     {0, 0, 1, 1, 2, 2}, {0, 0, 1, 1, 2, 2});
  EXPECT_NEAR(result.ratio.value, 2.0, 1e-12);
  EXPECT_NEAR(result.p_value, 0.2876, 1e-3);
  EXPECT_EQ(result.base_draws, 3);
  EXPECT_EQ(result.current_draws, 3);
  const auto by_rounds = compare_rounds({1.0, 4.0, 2.0, 8.0, 4.0, 16.0}, {2.0, 8.0, 4.0, 16.0, 8.0, 32.0});
  EXPECT_EQ(by_rounds.base_draws, 6);
}

}  // namespace replicates
