// Estimates over interleaved rounds against hand-computed values (see stats.h for the formulas).
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "ampbench/reports/stats.h"
#include "distributions.h"

namespace {

using namespace ampbench::reports;

TEST(StudentTCriticalValue, MatchesTables) {
  EXPECT_NEAR(detail::student_t_critical_value(0.05, 1), 12.7062, 1e-3);
  EXPECT_NEAR(detail::student_t_critical_value(0.05, 4), 2.7764, 1e-4);
  EXPECT_NEAR(detail::student_t_critical_value(0.05, 30), 2.0423, 1e-4);
  EXPECT_NEAR(detail::student_t_critical_value(0.05, 1e6), 1.9600, 1e-3);
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
