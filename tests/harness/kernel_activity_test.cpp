// record_kernel_activity where CUPTI cannot record (this machine has no GPU and no driver): an
// "unavailable" outcome with a one-line reason, not a crash. Recording real kernels needs a GPU.
#include "profile/kernel_activity.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace {

using ampbench::harness::record_kernel_activity;

TEST(KernelActivity, WithoutGpuWorkTheOutcomeIsUnavailableWithAOneLineReason) {
  const auto outcome = record_kernel_activity([] {});
  EXPECT_FALSE(outcome.measured.has_value());
  EXPECT_FALSE(outcome.unavailable_reason.empty());
  EXPECT_EQ(outcome.unavailable_reason.find('\n'), std::string::npos) << outcome.unavailable_reason;
}

TEST(KernelActivity, ARecordingCanFollowAnother) {
  const auto first = record_kernel_activity([] {});
  const auto second = record_kernel_activity([] {});
  EXPECT_EQ(first.unavailable_reason, second.unavailable_reason);
}

TEST(KernelActivity, ANestedRecordingIsRefusedAndTheOuterOneGoesOn) {
  bool section_ran = false;
  ampbench::harness::KernelActivityOutcome inner;
  const auto outer = record_kernel_activity([&] {
    section_ran = true;
    inner = record_kernel_activity([] {});
  });
  if (!section_ran) GTEST_SKIP() << "CUPTI could not start here: " << outer.unavailable_reason;
  EXPECT_EQ(inner.unavailable_reason, "another kernel-activity recording is in progress in this process");
}

TEST(KernelActivity, AnExceptionFromTheSectionPropagatesAndFreesTheRecording) {
  bool section_ran = false;
  const auto throwing = [&] {
    section_ran = true;
    throw std::runtime_error("step failed");
  };
  try {
    (void)record_kernel_activity(throwing);
  } catch (const std::runtime_error& error) {
    EXPECT_STREQ(error.what(), "step failed");
  }
  if (!section_ran) GTEST_SKIP() << "CUPTI could not start here, so the section did not run";
  const auto after = record_kernel_activity([] {});
  EXPECT_NE(after.unavailable_reason, "another kernel-activity recording is in progress in this process");
}

}  // namespace
