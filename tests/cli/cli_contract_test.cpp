// The CLI's contract with scripts and CI: exit codes, one-line errors plus usage on stderr.
#include <gtest/gtest.h>

#include <algorithm>

#include "support/process.h"

namespace {

using ampbench::testing::run_process;

long line_count(const std::string& text) { return std::count(text.begin(), text.end(), '\n'); }

TEST(CliContract, VersionPrintsVersionAndExitsZero) {
  const auto result = run_process({AMPBENCH_CLI, "--version"});
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_EQ(result.out.rfind("ampbench 0.", 0), 0u) << result.out;
}

TEST(CliContract, UnknownCommandIsOneLineErrorPlusUsageAndExitTwo) {
  const auto result = run_process({AMPBENCH_CLI, "frobnicate"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(line_count(result.err), 2) << result.err;
  EXPECT_NE(result.err.find("unknown command 'frobnicate'"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("usage: ampbench"), std::string::npos) << result.err;
  EXPECT_TRUE(result.out.empty());
}

TEST(CliContract, UnknownFlagNamesTheFlagAndExitsTwo) {
  const auto result = run_process({AMPBENCH_CLI, "env", "--frobnicate"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(line_count(result.err), 2) << result.err;
  EXPECT_NE(result.err.find("--frobnicate"), std::string::npos) << result.err;
}

TEST(CliContract, MissingCommandExitsTwo) {
  const auto result = run_process({AMPBENCH_CLI});
  EXPECT_EQ(result.exit_code, 2);
}

TEST(CliContract, EnvNamesTorchAndSaysWhetherAGpuWasFound) {
  const auto result = run_process({AMPBENCH_CLI, "env"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("torch           " AMPBENCH_TORCH_VERSION " ("), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("CUPTI"), std::string::npos) << result.out;
  // Either a GPU is listed or the reason there is none is given; never silence.
  const bool gpu_listed = result.out.find("  cuda:0") != std::string::npos;
  const bool reason_given = result.out.find("unavailable: ") != std::string::npos;
  EXPECT_TRUE(gpu_listed != reason_given) << result.out;
}

}  // namespace
