// Statistics at the largest size a report may hold (kMaxStepSamplesPerCell step times per cell):
// the bootstrap must stay cheap and right. Registered with a tight CTest timeout, so "finishes" is
// asserted there; the speed itself is measured by bench/microbenchmarks/reports_scale_benchmark.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "ampbench/reports/check.h"
#include "ampbench/reports/compare.h"
#include "ampbench/reports/report_json.h"
#include "ampbench/reports/stats.h"
#include "sample_report.h"

namespace {

using namespace ampbench::reports;

// n values evenly spaced over [low, high], in a shuffled but fixed order.
std::vector<double> even_samples(std::size_t n, double low, double high) {
  std::vector<double> samples(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t j = (i * 7919) % n;  // a permutation while n is not a multiple of 7919
    samples[j] = low + (high - low) * static_cast<double>(i) / static_cast<double>(n - 1);
  }
  return samples;
}

double half_width(const Ratio& ratio) { return (ratio.ci_high - ratio.ci_low) / 2.0; }

// The median of n draws from a density f has standard deviation 1 / (2 f sqrt(n)); for two
// independent groups uniform on [1, 2] (f = 1, median 1.5) the ratio's is sqrt(2) times that over
// 1.5, and the 95% interval is +-1.96 of it.
double expected_half_width(std::size_t n) {
  return 1.96 * std::sqrt(2.0) / (2.0 * std::sqrt(static_cast<double>(n))) / 1.5;
}

TEST(BootstrapAtScale, AMillionSamplesGiveTheAsymptoticInterval) {
  const std::size_t n = kMaxStepSamplesPerCell;
  const Ratio ratio = median_ratio(even_samples(n, 1.0, 2.0), even_samples(n, 1.0, 2.0));
  EXPECT_DOUBLE_EQ(ratio.value, 1.0);
  EXPECT_NEAR(half_width(ratio), expected_half_width(n), 0.1 * expected_half_width(n));
  EXPECT_NEAR((ratio.ci_low + ratio.ci_high) / 2.0, 1.0, 0.2 * expected_half_width(n));
}

TEST(BootstrapAtScale, BothWaysOfResamplingAgreeAtTheSwitch) {
  // n values are resampled value by value, n + 1 through order statistics.
  const std::size_t n = kBootstrapDirectResampleLimit;
  const Ratio direct = median_ratio(even_samples(n, 1.0, 2.0), even_samples(n, 1.0, 2.0));
  const Ratio order_statistics = median_ratio(even_samples(n + 1, 1.0, 2.0), even_samples(n + 1, 1.0, 2.0));
  EXPECT_NEAR(half_width(order_statistics), half_width(direct), 0.12 * half_width(direct));
  EXPECT_NEAR(half_width(order_statistics), expected_half_width(n + 1), 0.1 * expected_half_width(n + 1));
}

TEST(BootstrapAtScale, AReportWithAMillionStepsPerCellComparesAndChecks) {
  Report base;
  base.cells = {ampbench::testing::sample_cell("simple_net", "fp32", 0.001)};
  base.cells[0].step_times_s = even_samples(kMaxStepSamplesPerCell, 0.0010, 0.0011);
  base.cells[0].throughput.step_time_s = summarize(base.cells[0].step_times_s);
  Report current = base;
  for (double& t : current.cells[0].step_times_s) t *= 1.5;
  const auto result = check_reports(compare_reports(base, current), CheckOptions{});
  ASSERT_EQ(result.cells.size(), 1u);
  EXPECT_EQ(result.cells[0].verdict, Verdict::kRegressed);
  EXPECT_FALSE(result.passed);
}

}  // namespace
