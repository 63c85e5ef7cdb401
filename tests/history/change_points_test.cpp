// E-Divisive change points on small series whose answers are worked out by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <stdexcept>

#include "ampbench/history/change_points.h"

namespace {

using ampbench::history::ChangePointOptions;
using ampbench::history::ChangeScale;
using ampbench::history::detectable_change;
using ampbench::history::detectable_change_at_probe;
using ampbench::history::find_change_points;
using ampbench::history::find_change_points_at_probe;
using ampbench::history::ProbedPoint;
using ampbench::history::SeriesPoint;
using ampbench::history::test_split;

// Points with no interval of their own (the run's interval is the value itself).
std::vector<SeriesPoint> points(const std::vector<double>& values) {
  std::vector<SeriesPoint> out;
  for (const double v : values) out.push_back({v, v, v});
  return out;
}

// Values alternating +-1% around `level`, `count` of them.
std::vector<double> level(double value, int count) {
  std::vector<double> out;
  for (int i = 0; i < count; ++i) out.push_back(value * (i % 3 == 0 ? 1.0 : i % 3 == 1 ? 1.01 : 0.99));
  return out;
}

std::vector<double> concat(std::vector<double> a, const std::vector<double>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

ChangePointOptions absolute(double min_magnitude) {
  ChangePointOptions options;
  options.scale = ChangeScale::kAbsolute;
  options.min_magnitude = min_magnitude;
  return options;
}

TEST(WelchTest, MatchesTheHandComputedStatistic) {
  // [1,2,3,4] against [5,6,7,8]: means 2.5 and 6.5, variances 5/3 each, se = sqrt(2 * 5/3 / 4) =
  // 0.9129, t = 4.3818 on 6 Welch degrees: p = 0.0046592 (Simpson's rule on the t density).
  const auto change = test_split(points({1, 2, 3, 4, 5, 6, 7, 8}), 0, 4, 8, ChangeScale::kAbsolute);
  EXPECT_EQ(change.index, 4u);
  EXPECT_DOUBLE_EQ(change.before, 2.5);
  EXPECT_DOUBLE_EQ(change.after, 6.5);
  EXPECT_DOUBLE_EQ(change.magnitude, 4.0);
  EXPECT_NEAR(change.p_value, 0.0046592, 2e-6);
}

TEST(WelchTest, RelativeFiguresChangeByTheRatioOfGeometricMeans) {
  const auto change = test_split(points({1, 1, 4, 4}), 0, 2, 4, ChangeScale::kRelative);
  EXPECT_DOUBLE_EQ(change.before, 1.0);
  EXPECT_DOUBLE_EQ(change.after, 4.0);
  EXPECT_DOUBLE_EQ(change.magnitude, 3.0);
  EXPECT_EQ(change.p_value, 0.0);  // no spread on either side: any difference is certain
}

TEST(ChangePoints, AStepIsFoundWhereItIs) {
  // Five zeros then five ones: the energy statistic peaks at the boundary (every cross pair
  // differs by 1, no within pair does), and so does the split of four zeros and eight ones.
  auto found = find_change_points(points({0, 0, 0, 0, 0, 1, 1, 1, 1, 1}), absolute(0.5));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].index, 5u);
  EXPECT_DOUBLE_EQ(found[0].magnitude, 1.0);
  found = find_change_points(points({0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1}), absolute(0.5));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].index, 4u);
}

TEST(ChangePoints, NoneInNoise) { EXPECT_TRUE(find_change_points(points(level(1.0, 30)), {}).empty()); }

TEST(ChangePoints, EightPercentAfterTwentyRunsIsFoundAtRunTwenty) {
  const auto found = find_change_points(points(concat(level(1.0, 20), level(1.08, 10))), {});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].index, 20u);
  EXPECT_NEAR(found[0].magnitude, 0.08, 0.002);
  EXPECT_LT(found[0].p_value, 0.001);
}

TEST(ChangePoints, TwoChangesAreBothFound) {
  const auto found = find_change_points(points(concat(concat(level(1.0, 8), level(1.1, 8)), level(1.0, 8))), {});
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].index, 8u);
  EXPECT_EQ(found[1].index, 16u);
  EXPECT_GT(found[0].magnitude, 0.09);
  EXPECT_LT(found[1].magnitude, -0.08);
}

TEST(ChangePoints, AChangeSmallerThanTheMinimumMagnitudeIsNoChangePoint) {
  // 2%: certain (the +-1% noise is small next to it at 10 runs a side) but under the 5% minimum.
  const auto series = points(concat(level(1.0, 10), level(1.02, 10)));
  EXPECT_TRUE(find_change_points(series, {}).empty());
  ChangePointOptions lower;
  lower.min_magnitude = 0.01;
  EXPECT_EQ(find_change_points(series, lower).size(), 1u);
}

TEST(ChangePoints, RunsWhoseOwnIntervalsAreWideDoNotMakeAChangeCertain) {
  // The same 8% step, but each run measured +-20% (its 95% interval): the sides' variance is at
  // least the runs' own, so 8% is no longer beyond doubt; with +-1% intervals it is.
  auto values = concat(level(1.0, 10), level(1.08, 10));
  std::vector<SeriesPoint> wide;
  std::vector<SeriesPoint> tight;
  for (const double v : values) {
    wide.push_back({v, v / 1.2, v * 1.2});
    tight.push_back({v, v / 1.01, v * 1.01});
  }
  EXPECT_TRUE(find_change_points(wide, {}).empty());
  ASSERT_EQ(find_change_points(tight, {}).size(), 1u);
  EXPECT_EQ(find_change_points(tight, {})[0].index, 10u);
}

TEST(ChangePoints, OnlyThePointsFromTheGivenIndexAreSearched) {
  const auto values = concat(concat(level(1.0, 8), level(1.1, 8)), level(1.0, 8));
  const auto found = find_change_points(points(values), {}, 8);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].index, 16u);
  EXPECT_TRUE(find_change_points(points(values), {}, 24).empty());
}

TEST(ChangePoints, TooShortASeriesHasNone) {
  EXPECT_TRUE(find_change_points(points({1, 1, 1, 2, 2, 2, 2}), {}).empty());  // under two segments of 4
}

// `count` runs whose step time is 10 ms x probe^follows, times `code` from run `changed` on, each
// measured +-1% (both figures); the probe wiggles by +-`wiggle` (the pattern of level()) around 1,
// which moves by the factor `host_move` from run `changed` on.
struct Probed {
  std::vector<ProbedPoint> runs;
  std::vector<SeriesPoint> step_times;
};
Probed probed_series(int count, int changed, double follows, double code, double wiggle, double host_move) {
  Probed out;
  for (int i = 0; i < count; ++i) {
    const double pattern = i % 3 == 0 ? 0.0 : i % 3 == 1 ? 1.0 : -1.0;
    const double probe = (i >= changed ? host_move : 1.0) * (1.0 + wiggle * pattern);
    const double step = 0.01 * std::pow(probe, follows) * (i >= changed ? code : 1.0);
    const SeriesPoint step_time{step, step / 1.01, step * 1.01};
    out.step_times.push_back(step_time);
    out.runs.push_back({step_time, {step / probe, step / probe / 1.01, step / probe * 1.01}});
  }
  return out;
}

// The series at equal probe has one change point, at `index`, of exactly `magnitude`.
void expect_one_change_at_probe(const Probed& series, std::size_t index, double magnitude) {
  const auto found = find_change_points_at_probe(series.runs, {});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].index, index);
  EXPECT_NEAR(found[0].magnitude, magnitude, 1e-9);
}

TEST(ChangePointsAtProbe, AMoveOfTheHostTheStepFollowsIsNoChange) {
  // The host 12% faster from run 10, the step following the probe 0.7 of the way, within each side
  // too: at equal probe every run is the same (the step time 0.88^0.7 = -8.6% raw is a change).
  const auto series = probed_series(20, 10, 0.7, 1.0, 0.03, 0.88);
  EXPECT_TRUE(find_change_points_at_probe(series.runs, {}).empty());
  const auto raw = find_change_points(series.step_times, {});
  ASSERT_EQ(raw.size(), 1u);
  EXPECT_EQ(raw[0].index, 10u);
}

TEST(ChangePointsAtProbe, ACodeChangeIsMeasuredAtEqualProbe) {
  // +6% from run 12; the probe wiggles +-8% and the step follows it 0.7 of the way (+-5.6%), which
  // hides the change in the raw step time (t about 3 over 12 runs a side: p about 0.005). At equal
  // probe the sides are flat: the change is exactly +6%.
  const auto series = probed_series(24, 12, 0.7, 1.06, 0.08, 1.0);
  EXPECT_TRUE(find_change_points(series.step_times, {}).empty());
  expect_one_change_at_probe(series, 12, 0.06);
}

TEST(ChangePointsAtProbe, AChangeCoincidingWithAMoveOfTheProbeIsNotTakenForIt) {
  // The code 10% slower and the host 10% slower at run 12, the step following the probe half way:
  // the raw step time rose 1.1 x 1.1^0.5 = +15.4%. The slope within the sides (0.5) takes out the
  // probe's share alone; over the whole segment the move would read as the probe's.
  expect_one_change_at_probe(probed_series(24, 12, 0.5, 1.1, 0.05, 1.1), 12, 0.1);
}

TEST(DetectableChange, IsTheSearchsStepInSdsOfTheRunsSpread) {
  // 20 runs alternating 9 and 11 (sd sqrt(20/19)) against 10 more like them: Welch's formula at the
  // true split says (t(0.9995) 3.917 + t(0.9) 1.330, the tables at 18.1 degrees of freedom) x
  // sqrt(20/19 (1/20 + 1/10)) = 2.085 is found 9 times in 10. The search must also place the split
  // at its run +- 1, which it misses more often: its step is larger, though not by half.
  std::vector<double> values;
  std::vector<double> twice_as_wide;
  for (int i = 0; i < 20; ++i) {
    values.push_back(i % 2 == 0 ? 9.0 : 11.0);
    twice_as_wide.push_back(i % 2 == 0 ? 8.0 : 12.0);
  }
  const auto step = detectable_change(points(values), absolute(0.0), 10);
  ASSERT_TRUE(step);
  EXPECT_GT(*step, 2.085);
  EXPECT_LT(*step, 1.5 * 2.085);
  // In units of the runs' spread: twice the spread, twice the step.
  EXPECT_NEAR(*detectable_change(points(twice_as_wide), absolute(0.0), 10), 2.0 * *step, 1e-12);
  // Never under the minimum magnitude the search holds a change to.
  EXPECT_DOUBLE_EQ(*detectable_change(points(values), absolute(5.0), 10), 5.0);
  // More runs after the step resolve less; fewer than the search needs tell nothing.
  EXPECT_LT(*detectable_change(points(values), absolute(0.0), 20), *step);
  EXPECT_GT(*detectable_change(points(values), absolute(0.0), 4), *step);
  EXPECT_FALSE(detectable_change(points({9, 11, 9}), absolute(0.0), 10));
}

TEST(DetectableChange, RunsWhoseOwnIntervalsAreWideResolveLess) {
  // As the search's test: a side's variance is at least its runs' own mean variance.
  std::vector<SeriesPoint> tight;
  std::vector<SeriesPoint> wide;
  for (const double v : level(1.0, 20)) {
    tight.push_back({v, v / 1.01, v * 1.01});
    wide.push_back({v, v / 1.2, v * 1.2});
  }
  EXPECT_GT(*detectable_change(wide, {}, 10), 1.5 * *detectable_change(tight, {}, 10));
}

TEST(DetectableChange, TheStatedStepIsFoundNineTimesInTen) {
  // What the statement promises, by simulation: 20 runs of noise (sd 3% on logs) say which step
  // they resolve; that step after them, with 10 more runs of the same noise, is found by a search
  // over the 30 at its run +- 1 about 9 times in 10 (181 of these 200; their sd is estimated
  // from 20 runs, which the statement does not allow for), half that step far less often (43).
  // Seeded, with another generator than the statement's own: the same draws on every machine.
  std::mt19937 engine(33);
  std::normal_distribution<double> noise(0.0, 0.03);
  int found_stated = 0;
  int found_half = 0;
  constexpr int kTrials = 200;
  for (int trial = 0; trial < kTrials; ++trial) {
    std::vector<double> logs;
    for (int i = 0; i < 30; ++i) logs.push_back(noise(engine));
    std::vector<double> before;
    for (int i = 0; i < 20; ++i) before.push_back(std::exp(logs[i]));
    const double stated = *detectable_change(points(before), {}, 10);
    for (const double step : {stated, stated / 2.0}) {
      std::vector<double> values;
      for (int i = 0; i < 30; ++i) values.push_back(std::exp(logs[i]) * (i >= 20 ? 1.0 + step : 1.0));
      bool found = false;
      for (const auto& change : find_change_points(points(values), {})) {
        found = found || (change.index >= 19 && change.index <= 21);
      }
      (step == stated ? found_stated : found_half) += found;
    }
  }
  EXPECT_GE(found_stated, kTrials * 85 / 100) << found_stated << " of " << kTrials;
  EXPECT_LE(found_half, kTrials * 4 / 10) << found_half << " of " << kTrials;
}

TEST(DetectableChange, AtEqualProbeTheProbesShareIsNoNoise) {
  // The probe wiggles +-8% and the step follows it 0.7 of the way: per probe the runs spread by the
  // 0.3 the step does not follow (+-2.4%); at equal probe they are flat, each measured +-1%.
  const auto series = probed_series(20, 20, 0.7, 1.0, 0.08, 1.0);
  std::vector<SeriesPoint> per_probe;
  for (const auto& run : series.runs) per_probe.push_back(run.per_probe);
  const auto at_probe = detectable_change_at_probe(series.runs, {}, 10);
  ASSERT_TRUE(at_probe);
  EXPECT_LT(*at_probe, *detectable_change(per_probe, {}, 10));
  EXPECT_FALSE(detectable_change_at_probe(probed_series(3, 3, 0.7, 1.0, 0.08, 1.0).runs, {}, 10));
}

TEST(ChangePoints, BadInputIsRefused) {
  EXPECT_THROW((void)find_change_points(points({1, 0, 1, 1, 1, 1, 1, 1}), {}), std::invalid_argument);
  ChangePointOptions bad;
  bad.alpha = 0.0;
  EXPECT_THROW((void)find_change_points(points(level(1.0, 10)), bad), std::invalid_argument);
  EXPECT_THROW((void)test_split(points({1, 2}), 0, 2, 2, ChangeScale::kAbsolute), std::invalid_argument);
  EXPECT_THROW((void)find_change_points_at_probe(probed_series(10, 5, 0.5, 1.0, 0.05, 1.0).runs, absolute(0.05)),
               std::invalid_argument);
  EXPECT_THROW((void)detectable_change(points(level(1.0, 10)), bad, 10), std::invalid_argument);
  EXPECT_THROW((void)detectable_change_at_probe(probed_series(10, 5, 0.5, 1.0, 0.05, 1.0).runs, absolute(0.05), 10),
               std::invalid_argument);
}

}  // namespace
