// A test binary that crashes says where: the probe, linked like every test binary, dies of the
// signal it received (its exit status unchanged) after printing a stack that names the function.
#include <gtest/gtest.h>

#include <csignal>

#include "support/process.h"

namespace {

TEST(CrashBacktrace, AFatalSignalPrintsTheStackAndKeepsTheSignal) {
  const auto result = ampbench::testing::run_process({AMPBENCH_CRASH_PROBE, "crash"});
  EXPECT_EQ(result.exit_code, 128 + SIGSEGV) << result.err;
  EXPECT_NE(result.err.find("received fatal signal 11"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("crash_here_for_the_test"), std::string::npos) << result.err;
}

TEST(CrashBacktrace, ACallThroughANullPointerNamesItsCaller) {
  const auto result = ampbench::testing::run_process({AMPBENCH_CRASH_PROBE, "call-nowhere"});
  EXPECT_EQ(result.exit_code, 128 + SIGSEGV) << result.err;
  EXPECT_NE(result.err.find("fault address 0x0000000000000000, instruction 0x0000000000000000"), std::string::npos)
      << result.err;
  const auto site = result.err.find("the word at the stack pointer");
  ASSERT_NE(site, std::string::npos) << result.err;
  EXPECT_NE(result.err.find("call_nowhere_for_the_test", site), std::string::npos) << result.err;
}

TEST(CrashBacktrace, ANormalExitPrintsNothing) {
  const auto result = ampbench::testing::run_process({AMPBENCH_CRASH_PROBE});
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_TRUE(result.err.empty()) << result.err;
}

}  // namespace
