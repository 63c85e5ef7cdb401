// The CLI's contract with scripts and CI: exit codes, one-line errors plus usage on stderr.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "support/process.h"
#include "support/scratch_dir.h"

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

// `ampbench run` refuses before measuring anything: exit 2, one error line (then the usage line)
// naming the flag, and no output folder.
void expect_run_refused(std::vector<std::string> args, const std::string& culprit) {
  const ampbench::testing::ScratchDir dir;
  args.insert(args.begin(), {AMPBENCH_CLI, "run", "--preset", "seed"});
  if (std::find(args.begin(), args.end(), "--out") == args.end())
    args.insert(args.end(), {"--out", (dir / "out").string()});
  const auto result = run_process(args);
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_EQ(line_count(result.err), 2) << result.err;
  EXPECT_EQ(result.err.rfind("ampbench: error: " + culprit, 0), 0u)
      << "expected '" << culprit << "' in: " << result.err;
  EXPECT_TRUE(result.out.empty()) << result.out;
  EXPECT_TRUE(std::filesystem::is_empty(dir.path())) << "bad input must write nothing";
}

// An empty list is a mistake, not a request for the default (leaving the flag out is that).
TEST(CliContract, AnEmptyListOfModesOrWorkloadsIsBadInput) {
  expect_run_refused({"--modes", ""}, "--modes: '' lists nothing");
  expect_run_refused({"--modes", ","}, "--modes: ',' lists nothing");
  expect_run_refused({"--workloads", ""}, "--workloads: '' lists nothing");
}

// A folder name one byte over NAME_MAX (255): ENAMETOOLONG is the user's path to fix, named by
// --out, not an internal error (exit 3) from std::filesystem.
TEST(CliContract, RunOutUnderAFolderNameLongerThanTheFilesystemAllowsIsBadInput) {
  const ampbench::testing::ScratchDir parent;
  const auto folder = parent / std::string(256, 'x');
  for (const auto& out : {folder, folder / "out"}) {
    expect_run_refused({"--out", out.string()}, "--out " + out.string() + ": File name too long");
  }
  EXPECT_TRUE(std::filesystem::is_empty(parent.path()));
}

}  // namespace
