// profile_tensor_cores where it cannot measure. On this kind of machine (no GPU, no driver) CUPTI
// fails at cuptiProfilerInitialize; on a GPU machine the null context stops it. Either way the
// outcome must say why, the steps must never run, and the process must carry on.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "profile/cupti/cupti_tensor_cores.h"

namespace ampbench::harness::cupti {
namespace {

void expect_unavailable_without_running(const TensorCoreOutcome& outcome, int step_calls) {
  EXPECT_FALSE(outcome.measured);
  EXPECT_FALSE(outcome.reason.empty());
  EXPECT_EQ(outcome.reason.find('\n'), std::string::npos) << outcome.reason;
  EXPECT_TRUE(outcome.metrics.empty());
  EXPECT_EQ(outcome.passes, 0);
  EXPECT_EQ(step_calls, 0);
}

TEST(CuptiTensorCores, WithoutAGpuOrContextReportsWhyAndNeverRunsTheSteps) {
  int step_calls = 0;
  const TensorCoreOutcome outcome = profile_tensor_cores(nullptr, 0, [&] { ++step_calls; });
  expect_unavailable_without_running(outcome, step_calls);
  RecordProperty("reason", outcome.reason);
}

TEST(CuptiTensorCores, TryingAgainInTheSameProcessGivesTheSameAnswer) {
  int step_calls = 0;
  const TensorCoreOutcome first = profile_tensor_cores(nullptr, 0, [&] { ++step_calls; });
  const TensorCoreOutcome second = profile_tensor_cores(nullptr, 0, [&] { ++step_calls; });
  expect_unavailable_without_running(second, step_calls);
  EXPECT_EQ(first.reason, second.reason);
}

TEST(CuptiTensorCores, StepsThatWouldThrowAreNeverReached) {
  const TensorCoreOutcome outcome =
      profile_tensor_cores(nullptr, 0, [] { throw std::runtime_error("must not be called without a GPU"); });
  expect_unavailable_without_running(outcome, 0);
}

TEST(CuptiTensorCores, MissingStepsAreReportedNotCalled) {
  const TensorCoreOutcome outcome = profile_tensor_cores(nullptr, 0, {});
  expect_unavailable_without_running(outcome, 0);
  EXPECT_NE(outcome.reason.find("no profiled steps"), std::string::npos) << outcome.reason;
}

TEST(CuptiTensorCores, NegativeDeviceIndexIsReported) {
  int step_calls = 0;
  const TensorCoreOutcome outcome = profile_tensor_cores(nullptr, -1, [&] { ++step_calls; });
  expect_unavailable_without_running(outcome, step_calls);
}

}  // namespace
}  // namespace ampbench::harness::cupti
