// The flags `check` and `compare` share, through the commands themselves in this process (the
// report commands need no LibTorch, so this runs in the reports-only build too): reports of
// different world sizes are refused naming both and --allow-different-ranks, before anything is
// written, and read together with the flag, where a cell of N ranks meets only one of N ranks.
#include "check_thresholds.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "ampbench/reports/report_json.h"
#include "commands.h"
#include "exit_codes.h"
#include "sample_report.h"
#include "support/scratch_dir.h"

namespace {

using ampbench::cli::UsageError;
using ampbench::testing::ScratchDir;

struct CommandResult {
  int exit_code = -1;
  std::string out;
};

// `ampbench ARGS...` as main() runs it, but a UsageError (exit 2 there) propagates.
CommandResult run_command(const std::vector<std::string>& args) {
  CLI::App app;
  app.require_subcommand(1);
  const auto check = ampbench::cli::add_check_command(app);
  const auto compare = ampbench::cli::add_compare_command(app);
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes them last first
  app.parse(reversed);
  ::testing::internal::CaptureStdout();
  CommandResult result;
  try {
    result.exit_code = app.get_subcommands().front()->get_name() == "check" ? check() : compare();
  } catch (...) {
    (void)::testing::internal::GetCapturedStdout();
    throw;
  }
  result.out = ::testing::internal::GetCapturedStdout();
  return result;
}

std::string usage_error(const std::vector<std::string>& args) {
  try {
    (void)run_command(args);
  } catch (const UsageError& error) {
    return error.what();
  }
  return "(no error)";
}

class WorldSizes : public ::testing::Test {
 protected:
  void SetUp() override {
    // The same machine and cells, run with --ranks 1 and with --ranks 2.
    auto one_rank = ampbench::testing::make_data_parallel_report();
    one_rank.config.ranks = 1;
    one_rank.cells.resize(3);
    ampbench::reports::write_report_atomically(one_rank, one_);
    ampbench::reports::write_report_atomically(ampbench::testing::make_data_parallel_report(), two_);
  }
  ScratchDir dir_;
  std::string one_ = (dir_ / "one.json").string();
  std::string two_ = (dir_ / "two.json").string();
  std::string md_ = (dir_ / "out.md").string();
};

TEST_F(WorldSizes, CheckRefusesThemNamingBothAndTheFlag) {
  EXPECT_EQ(usage_error({"check", "--baseline", one_, "--current", two_, "--md", md_}),
            "the reports come from different world sizes (" + one_ + " 1 rank, " + two_ +
                " 2 ranks); pass --allow-different-ranks to read them together anyway");
  EXPECT_FALSE(std::filesystem::exists(md_));
}

TEST_F(WorldSizes, CompareRefusesThemNamingEachRun) {
  std::filesystem::copy_file(two_, dir_ / "two-again.json");
  EXPECT_EQ(usage_error({"compare", one_, two_, (dir_ / "two-again.json").string(), "--md", md_}),
            "the reports come from different world sizes (" + one_ + " 1 rank, " + two_ + " 2 ranks, " +
                (dir_ / "two-again.json").string() +
                " 2 ranks); pass --allow-different-ranks to read them together "
                "anyway");
  EXPECT_FALSE(std::filesystem::exists(md_));
}

TEST_F(WorldSizes, WithTheFlagCellsMeetOnlyCellsOfTheirRanks) {
  const auto checked =
      run_command({"check", "--baseline", one_, "--current", two_, "--md", md_, "--allow-different-ranks"});
  EXPECT_EQ(checked.exit_code, ampbench::cli::kExitSuccess) << checked.out;
  EXPECT_NE(checked.out.find("missing  simple_net/fp32/cpu/default/ranks=2\n    only in the current report\n"),
            std::string::npos)
      << checked.out;
  EXPECT_NE(checked.out.find("pass  simple_net/fp32/cpu/default\n"), std::string::npos) << checked.out;
  EXPECT_NE(checked.out.find("PASS: 0 of 6 cells regressed, 4 missing or not compared"), std::string::npos)
      << checked.out;
  EXPECT_TRUE(std::filesystem::exists(md_));
  const auto compared = run_command({"compare", one_, two_, "--allow-different-ranks"});
  EXPECT_EQ(compared.exit_code, ampbench::cli::kExitSuccess);
  EXPECT_NE(compared.out.find("setting --ranks"), std::string::npos) << compared.out;
  EXPECT_NE(compared.out.find("simple_net/fp16/cpu/default/ranks=2  missing"), std::string::npos) << compared.out;
}

TEST_F(WorldSizes, TheSameWorldSizeNeedsNoFlag) {
  std::filesystem::copy_file(two_, dir_ / "two-again.json");
  const auto result = run_command({"check", "--baseline", two_, "--current", (dir_ / "two-again.json").string()});
  EXPECT_EQ(result.exit_code, ampbench::cli::kExitSuccess) << result.out;
  EXPECT_NE(result.out.find("pass  simple_net/fp16/cpu/default/ranks=2\n"), std::string::npos) << result.out;
}

}  // namespace
