// When ampbench must leave CUPTI alone: Nsight Systems / Nsight Compute (or another CUDA injection
// tool) attached, or the caller turned CUPTI off. Pure functions of the environment.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <string>

#include "profile/external_profiler.h"

namespace ampbench::harness {
namespace {

EnvironmentLookup environment_of(std::map<std::string, std::string> variables) {
  return [variables = std::move(variables)](std::string_view name) -> std::optional<std::string> {
    const auto it = variables.find(std::string(name));
    if (it == variables.end()) return std::nullopt;
    return it->second;
  };
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(ExternalProfiler, NothingAttachedMeansNoReason) {
  EXPECT_EQ(injected_profiler_reason(environment_of({{"PATH", "/usr/bin"}, {"HOME", "/root"}})), std::nullopt);
  EXPECT_EQ(cupti_skip_reason(true, environment_of({})), std::nullopt);
}

TEST(ExternalProfiler, NsightSystemsSessionIsNamed) {
  const auto reason = injected_profiler_reason(environment_of({{"NSYS_PROFILING_SESSION_ID", "7"}}));
  ASSERT_TRUE(reason.has_value());
  EXPECT_TRUE(contains(*reason, "Nsight Systems")) << *reason;
  EXPECT_TRUE(contains(*reason, "NSYS_PROFILING_SESSION_ID=7")) << *reason;
  EXPECT_TRUE(contains(*reason, "skipped")) << *reason;
}

TEST(ExternalProfiler, CudaInjectionLibraryIsNamedWithItsPath) {
  const auto reason = injected_profiler_reason(environment_of(
      {{"CUDA_INJECTION64_PATH", "/opt/nvidia/nsight-compute/target/libTreeLauncherTargetInjection.so"}}));
  ASSERT_TRUE(reason.has_value());
  EXPECT_TRUE(contains(*reason, "CUDA_INJECTION64_PATH=/opt/nvidia/nsight-compute/target/")) << *reason;
  EXPECT_TRUE(contains(*reason, "Nsight Compute")) << *reason;
  EXPECT_EQ(reason->find('\n'), std::string::npos);
}

TEST(ExternalProfiler, AnEmptyInjectionPathInjectsNothing) {
  EXPECT_EQ(injected_profiler_reason(environment_of({{"CUDA_INJECTION64_PATH", ""}})), std::nullopt);
}

// ampbench's own NVTX test records ranges through NVTX_INJECTION64_PATH; that takes no CUPTI.
TEST(ExternalProfiler, NvtxInjectionAloneDoesNotCount) {
  EXPECT_EQ(injected_profiler_reason(environment_of({{"NVTX_INJECTION64_PATH", "/tmp/librecorder.so"}})), std::nullopt);
}

TEST(ExternalProfiler, TurningCuptiOffWinsAndSaysHow) {
  const auto reason = cupti_skip_reason(false, environment_of({{"NSYS_PROFILING_SESSION_ID", "7"}}));
  ASSERT_TRUE(reason.has_value());
  EXPECT_TRUE(contains(*reason, "--no-cupti")) << *reason;
  const auto injected = cupti_skip_reason(true, environment_of({{"NSYS_PROFILING_SESSION_ID", "7"}}));
  ASSERT_TRUE(injected.has_value());
  EXPECT_TRUE(contains(*injected, "Nsight Systems")) << *injected;
}

TEST(ExternalProfiler, ProcessEnvironmentReadsThisProcess) {
  ASSERT_EQ(setenv("AMPBENCH_EXTERNAL_PROFILER_TEST", "value", 1), 0);
  EXPECT_EQ(process_environment()("AMPBENCH_EXTERNAL_PROFILER_TEST"), "value");
  ASSERT_EQ(unsetenv("AMPBENCH_EXTERNAL_PROFILER_TEST"), 0);
  EXPECT_EQ(process_environment()("AMPBENCH_EXTERNAL_PROFILER_TEST"), std::nullopt);
}

}  // namespace
}  // namespace ampbench::harness
