// The allocator policy through the real binary (docs/running.md, "What a step time describes"): every policy runs, each
// worker's malloc is the policy's whatever the caller's environment preloads, the report records
// it with per-step page faults, and a policy that cannot be had is bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "ampbench/reports/report_json.h"
#include "support/process.h"
#include "support/scratch_dir.h"

namespace {

namespace fs = std::filesystem;
using ampbench::testing::run_process;

class AllocatorRun : public ::testing::Test {
 protected:
  [[nodiscard]] std::vector<std::string> tiny_run(const std::string& policy) const {
    return {AMPBENCH_CLI,   "run",       "--workloads",      "simplenet", "--preset",       "seed",
            "--modes",      "fp32,bf16", "--warmup",         "1",         "--steps",        "6",
            "--replicates", "2",         "--numerics-steps", "0",         "--no-breakdown", "--allocator",
            policy,         "--out",     out().string()};
  }
  [[nodiscard]] fs::path out() const { return dir_ / "out"; }
  ampbench::testing::ScratchDir dir_;
};

std::string file_name(const std::string& path) { return fs::path(path).filename().string(); }

TEST_F(AllocatorRun, EveryPolicyRunsAndIsRecordedWithPageFaultsPerStep) {
  for (const std::string policy : {"glibc", "glibc-fixed", "jemalloc", "tcmalloc"}) {
    fs::remove_all(out());
    // A caller that preloads another allocator and tunes glibc's must not change what a worker runs.
    const auto result = run_process(tiny_run(policy), {"LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2",
                                                       "MALLOC_TRIM_THRESHOLD_=4294967296"});
    ASSERT_EQ(result.exit_code, 0) << policy << ": " << result.err;
    const auto report = ampbench::reports::read_report(out() / "report.json");
    EXPECT_EQ(std::string(ampbench::reports::to_string(report.config.allocator)), policy);
    ASSERT_TRUE(report.environment.allocator.has_value()) << policy;
    const auto& allocator = *report.environment.allocator;
    EXPECT_EQ(allocator.policy, policy);
    const auto library = file_name(allocator.library);
    if (policy == "jemalloc") {
      EXPECT_EQ(library, "libjemalloc.so.2");
      EXPECT_EQ(allocator.version.rfind("jemalloc 5.", 0), 0u) << allocator.version;
    } else if (policy == "tcmalloc") {
      EXPECT_EQ(library, "libtcmalloc_minimal.so.4");
    } else {
      EXPECT_EQ(library.rfind("libc.so", 0), 0u) << policy << ": " << allocator.library;
    }
    EXPECT_EQ(allocator.settings.find("also sets"), std::string::npos) << "the caller's tunables reached a worker";
    EXPECT_GT(allocator.page_fault_s, 0.0);
    for (const auto& cell : report.cells) {
      ASSERT_TRUE(cell.page_faults.has_value()) << policy << " " << cell.mode;
      EXPECT_EQ(cell.page_faults->minor.size(), cell.step_times_s.size());
      EXPECT_EQ(cell.page_faults->major.size(), cell.step_times_s.size());
    }
    EXPECT_NE(result.out.find("Allocator: " + policy + " ("), std::string::npos) << result.out;
    EXPECT_NE(result.out.find("faults/step"), std::string::npos) << result.out;
  }
}

TEST_F(AllocatorRun, BadOrMissingPoliciesAreBadInput) {
  const auto bad = [&](std::vector<std::string> args, const std::vector<std::string>& env, const std::string& culprit) {
    const auto result = run_process(args, env);
    EXPECT_EQ(result.exit_code, 2) << result.err;
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 2) << result.err;  // the error and the usage hint
    EXPECT_NE(result.err.find(culprit), std::string::npos) << "expected '" << culprit << "' in: " << result.err;
    EXPECT_FALSE(fs::exists(out())) << "bad input must write nothing";
  };
  bad(tiny_run("ptmalloc"), {}, "--allocator: 'ptmalloc' is not glibc, glibc-fixed, jemalloc or tcmalloc");
  bad(tiny_run("jemalloc"), {"AMPBENCH_LIBRARY_FOLDERS=/nonexistent"},
      "--allocator jemalloc: libjemalloc.so.2 is not installed (Debian's libjemalloc2");
  auto unisolated = tiny_run("tcmalloc");
  unisolated.push_back("--no-isolate");
  bad(unisolated, {}, "--allocator tcmalloc: malloc in this process comes from");
}

TEST_F(AllocatorRun, WithoutIsolationThisProcessAppliesTheGlibcPolicies) {
  auto args = tiny_run("glibc-fixed");
  args.push_back("--no-isolate");
  const auto result = run_process(args);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto report = ampbench::reports::read_report(out() / "report.json");
  ASSERT_TRUE(report.environment.allocator.has_value());
  EXPECT_NE(report.environment.allocator->settings.find("mallopt"), std::string::npos);
}

}  // namespace
