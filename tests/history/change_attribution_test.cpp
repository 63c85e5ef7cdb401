// Whose change a raw step-time change point is (history/change_attribution.h), on hand-made
// series: the machine's when the step time per probe stayed put over the same runs; not when it
// moved clearly, or by half the raw change, or has a change point of its own near the raw one.
#include "ampbench/history/change_attribution.h"

#include <gtest/gtest.h>

namespace {

using ampbench::history::ChangePoint;
using ampbench::history::machines_change;
using ampbench::history::SeriesEntry;
using ampbench::history::StoredChangePoint;

// Runs 1..values.size(), each value with a +-1% interval over 5 draws.
std::vector<SeriesEntry> series(const std::vector<double>& values) {
  std::vector<SeriesEntry> out;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const auto run = static_cast<std::int64_t>(i) + 1;
    out.push_back({run, "c" + std::to_string(run), "main", "", {values[i], 0.99 * values[i], 1.01 * values[i], 5}});
  }
  return out;
}

StoredChangePoint change_at(std::int64_t run, double magnitude) {
  ChangePoint change;
  change.magnitude = magnitude;
  return {run, run - 1, 12, change};
}

// Six runs at `before`, six at `after`, with a +-0.5% alternation so that no side is constant.
std::vector<double> step(double before, double after) {
  std::vector<double> values;
  for (int i = 0; i < 12; ++i) values.push_back((i < 6 ? before : after) * (i % 2 == 0 ? 1.005 : 0.995));
  return values;
}

TEST(ChangeAttribution, AStepTheProbeMovedWithIsTheMachines) {
  const auto raw = series(step(1.0, 0.88));
  const auto ratio = machines_change(raw, {change_at(7, -0.12)}, 0, series(step(1.0, 1.0)), {});
  ASSERT_TRUE(ratio.has_value());
  EXPECT_NEAR(ratio->magnitude, 0.0, 1e-9);  // the alternation is the same each side
  EXPECT_GT(ratio->p_value, 0.5);
  EXPECT_EQ(ratio->index, 6u);
}

TEST(ChangeAttribution, ARatioThatMovedIsNotTheMachinesEvenBelowHalfTheRawChange) {
  const auto raw = series(step(1.0, 0.88));
  // -4%, a third of the raw change, but clear against a +-0.5% scatter: the code moved too.
  EXPECT_FALSE(machines_change(raw, {change_at(7, -0.12)}, 0, series(step(1.0, 0.96)), {}).has_value());
  // More than half the raw change (-7% of -12%) is not the machine's however noisy the ratio (+-8%).
  std::vector<double> noisy;
  for (int i = 0; i < 12; ++i) noisy.push_back((i < 6 ? 1.0 : 0.93) * (i % 2 == 0 ? 1.08 : 0.92));
  EXPECT_FALSE(machines_change(raw, {change_at(7, -0.12)}, 0, series(noisy), {}).has_value());
  // The same scatter around an unmoved ratio is the machine's.
  std::vector<double> unmoved;
  for (int i = 0; i < 12; ++i) unmoved.push_back(i % 2 == 0 ? 1.08 : 0.92);
  EXPECT_TRUE(machines_change(raw, {change_at(7, -0.12)}, 0, series(unmoved), {}).has_value());
}

TEST(ChangeAttribution, ACodeChangeMovesTheRatioAndIsNotTheMachines) {
  const auto raw = series(step(1.0, 1.08));
  EXPECT_FALSE(machines_change(raw, {change_at(7, 0.08)}, 0, series(step(1.0, 1.08)), {change_at(7, 0.08)}));
}

TEST(ChangeAttribution, APerProbeChangePointWithinTwoRunsCountsAgainstIt) {
  const auto raw = series(step(1.0, 0.88));
  const auto flat = series(step(1.0, 1.0));
  for (const std::int64_t run : {5, 6, 8, 9}) {
    EXPECT_FALSE(machines_change(raw, {change_at(7, -0.12)}, 0, flat, {change_at(run, -0.05)}).has_value()) << run;
  }
  EXPECT_TRUE(machines_change(raw, {change_at(7, -0.12)}, 0, flat, {change_at(10, -0.05)}).has_value());
}

TEST(ChangeAttribution, OnlyTheRunsBetweenTheNeighbouringChangePointsAreCompared) {
  // Raw: 1.0 for runs 1-4, 1.2 for 5-8, 1.08 for 9-12; the ratio moved at run 5 (the code) only.
  const auto raw = series({1.0, 1.0, 1.0, 1.0, 1.2, 1.2, 1.2, 1.2, 1.08, 1.08, 1.08, 1.08});
  const auto per_probe = series({1.0, 1.0, 1.0, 1.0, 1.2, 1.2, 1.2, 1.2, 1.2, 1.2, 1.2, 1.2});
  const std::vector<StoredChangePoint> changes{change_at(5, 0.2), change_at(9, -0.1)};
  const std::vector<StoredChangePoint> per_probe_changes{change_at(5, 0.2)};
  EXPECT_FALSE(machines_change(raw, changes, 0, per_probe, per_probe_changes).has_value());
  const auto second = machines_change(raw, changes, 1, per_probe, per_probe_changes);
  ASSERT_TRUE(second.has_value());  // over runs 5-12 the ratio did not move
  EXPECT_NEAR(second->magnitude, 0.0, 1e-12);
}

TEST(ChangeAttribution, WithoutTwoPerProbeRunsEachSideItSaysNothing) {
  const auto raw = series(step(1.0, 0.88));
  auto short_probe = series(step(1.0, 1.0));
  short_probe.resize(7);  // runs 1-7: one run after the change
  EXPECT_FALSE(machines_change(raw, {change_at(7, -0.12)}, 0, short_probe, {}).has_value());
  EXPECT_FALSE(machines_change(raw, {change_at(7, -0.12)}, 0, {}, {}).has_value());
  EXPECT_THROW((void)machines_change(raw, {change_at(7, -0.12)}, 1, short_probe, {}), std::out_of_range);
}

}  // namespace
