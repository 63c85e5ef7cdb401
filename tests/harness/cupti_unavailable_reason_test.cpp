#include <gtest/gtest.h>

#include <string>

#include "profile/cupti/cupti_unavailable_reason.h"

namespace ampbench::harness::cupti {
namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(CuptiUnavailableReason, InsufficientPrivilegesSaysHowToEnableCounters) {
  const std::string reason = reason_for(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, "cuptiRangeProfilerEnable on device 0");
  EXPECT_TRUE(contains(reason, "NVreg_RestrictProfilingToAdminUsers=0")) << reason;
  EXPECT_TRUE(contains(reason, "/etc/modprobe.d")) << reason;
  EXPECT_TRUE(contains(reason, "CAP_PERFMON")) << reason;
  EXPECT_TRUE(contains(reason, "CAP_SYS_ADMIN")) << reason;
  EXPECT_TRUE(contains(reason, "--cap-add SYS_ADMIN")) << reason;
  EXPECT_TRUE(contains(reason, "cuptiRangeProfilerEnable on device 0: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES")) << reason;
}

TEST(CuptiUnavailableReason, NoDriverOrNoDevice) {
  EXPECT_TRUE(contains(reason_for(CUPTI_ERROR_NOT_INITIALIZED, "cuptiProfilerInitialize"), "no NVIDIA driver"));
  EXPECT_TRUE(contains(reason_for(CUPTI_ERROR_UNKNOWN, "cuptiProfilerInitialize"), "libcuda.so.1"));
  const std::string no_device = reason_for(CUPTI_ERROR_INVALID_DEVICE, "cuptiDeviceGetChipName for device 3");
  EXPECT_TRUE(contains(no_device, "no such CUDA device")) << no_device;
  EXPECT_TRUE(contains(no_device, "device 3")) << no_device;
}

TEST(CuptiUnavailableReason, UnsupportedChip) {
  for (const CUptiResult result : {CUPTI_ERROR_INVALID_CHIP_NAME, CUPTI_ERROR_NOT_SUPPORTED}) {
    const std::string reason = reason_for(result, "cuptiProfilerHostInitialize for chip 'GV11B'");
    EXPECT_TRUE(contains(reason, "unsupported chip")) << reason;
    EXPECT_TRUE(contains(reason, "'GV11B'")) << reason;
  }
}

TEST(CuptiUnavailableReason, CountersInUseByAnotherProfiler) {
  EXPECT_TRUE(contains(reason_for(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED, "x"), "another profiler"));
  EXPECT_TRUE(contains(reason_for(CUPTI_ERROR_HARDWARE_BUSY, "x"), "another profiler"));
  EXPECT_TRUE(contains(reason_for(CUPTI_ERROR_HARDWARE_BUSY, "x"), "dcgmi profile --pause"));
}

TEST(CuptiUnavailableReason, EveryResultIsOneLineNamingTheResultAndTheContext) {
  // CUPTI 13.0's cuptiGetResultString has no name for some results (36 and 37); those show their number.
  for (int code = CUPTI_ERROR_INVALID_PARAMETER; code <= CUPTI_ERROR_INVALID_CHIP_NAME; ++code) {
    const std::string reason = reason_for(static_cast<CUptiResult>(code), "the call");
    EXPECT_FALSE(contains(reason, "\n")) << reason;
    EXPECT_TRUE(contains(reason, "(the call: CUPTI_ERROR_") ||
                contains(reason, "(the call: CUptiResult " + std::to_string(code) + ")"))
        << reason;
  }
  EXPECT_TRUE(contains(reason_for(static_cast<CUptiResult>(12345), "the call"), "CUptiResult 12345"));
}

TEST(CuptiUnavailableReason, CuptiCallFailedCarriesTheResultAndTheReason) {
  const CuptiCallFailed failure(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, "cuptiRangeProfilerEnable on device 0");
  EXPECT_EQ(failure.result(), CUPTI_ERROR_INSUFFICIENT_PRIVILEGES);
  EXPECT_EQ(std::string(failure.what()),
            reason_for(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, "cuptiRangeProfilerEnable on device 0"));
  EXPECT_NO_THROW(check_cupti(CUPTI_SUCCESS, "fine"));
  EXPECT_THROW(check_cupti(CUPTI_ERROR_UNKNOWN, "not fine"), CuptiCallFailed);
}

}  // namespace
}  // namespace ampbench::harness::cupti
