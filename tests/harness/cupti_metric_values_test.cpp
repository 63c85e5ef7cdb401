// What the range profiler's evaluated values become in a report: finite ones are metrics, a NaN or
// infinity anywhere makes the counters unavailable with a reason that says what to do.
#include <gtest/gtest.h>

#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "profile/cupti/cupti_metric_values.h"

namespace ampbench::harness::cupti {
namespace {

const std::vector<MetricRequest> kRequests = {
    {"sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active", "percent"},
    {"sm__inst_executed_pipe_tensor.sum", "instructions"},
    {"sm__cycles_elapsed.max", "cycles"},
};

TEST(CuptiMetricValues, FiniteValuesBecomeMetricsInOrder) {
  const CounterMetrics result = tensor_core_metrics_from(kRequests, {42.5, 1.0e6, 0.0});
  EXPECT_TRUE(result.unavailable_reason.empty()) << result.unavailable_reason;
  ASSERT_EQ(result.metrics.size(), 3u);
  for (std::size_t i = 0; i < kRequests.size(); ++i) {
    EXPECT_EQ(result.metrics[i].name, kRequests[i].name);
    EXPECT_EQ(result.metrics[i].unit, kRequests[i].unit);
    EXPECT_EQ(result.metrics[i].method, "cupti-range-profiler");
  }
  EXPECT_EQ(result.metrics[0].value, 42.5);
  EXPECT_EQ(result.metrics[2].value, 0.0);
}

TEST(CuptiMetricValues, NanMakesTheCountersUnavailableNamingTheMetricAndDcgm) {
  const CounterMetrics result =
      tensor_core_metrics_from(kRequests, {std::numeric_limits<double>::quiet_NaN(), 1.0e6, 5.0e5});
  EXPECT_TRUE(result.metrics.empty());
  EXPECT_NE(result.unavailable_reason.find(kRequests[0].name), std::string::npos) << result.unavailable_reason;
  EXPECT_EQ(result.unavailable_reason.find(kRequests[1].name), std::string::npos) << result.unavailable_reason;
  EXPECT_NE(result.unavailable_reason.find("dcgmi profile --pause"), std::string::npos) << result.unavailable_reason;
  EXPECT_EQ(result.unavailable_reason.find('\n'), std::string::npos);
}

TEST(CuptiMetricValues, InfinityIsNotAMeasurementEither) {
  const CounterMetrics result = tensor_core_metrics_from(
      kRequests, {10.0, std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()});
  EXPECT_TRUE(result.metrics.empty());
  EXPECT_NE(result.unavailable_reason.find(kRequests[1].name), std::string::npos) << result.unavailable_reason;
  EXPECT_NE(result.unavailable_reason.find(kRequests[2].name), std::string::npos) << result.unavailable_reason;
}

TEST(CuptiMetricValues, MismatchedLengthsAreAnError) {
  EXPECT_THROW(static_cast<void>(tensor_core_metrics_from(kRequests, {1.0, 2.0})), std::invalid_argument);
}

}  // namespace
}  // namespace ampbench::harness::cupti
