// `ampbench explain` and the breakdown on real cells: a short run of the default suite's cells
// (every workload, every mode the device runs by default) through the real binary; every cell's
// categories cover its profiled step within 10% on a CPU, every AMP cell gets findings with
// figures, and the command's bad input.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "ampbench/reports/report_json.h"
#include "support/process.h"
#include "support/scratch_dir.h"

namespace {

using ampbench::testing::run_process;

// One run for every check: each TEST is its own process here, and the run takes half a minute.
TEST(ExplainCommand, OnTheDefaultSuitesCells) {
  const ampbench::testing::ScratchDir dir;
  const auto path = (dir / "out" / "report.json").string();
  const auto run = run_process({AMPBENCH_CLI, "run", "--replicates", "1", "--steps", "12", "--time-cap", "2",
                                "--numerics-steps", "0", "--out", (dir / "out").string()});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto report = ampbench::reports::read_report(path);
  // Three workloads in every mode the device runs by default (TF32 too on a GPU).
  ASSERT_EQ(report.cells.size(), 3 * report.config.modes.size());
  const auto suffix = "/" + report.config.device + "/default";

  // Every cell's categories and what they leave out add up to its profiled step. On a CPU, where
  // the host's ops are the step, the categories cover most of it: 96-100% by cell on a quiet host,
  // while the host's preemptions between ops are unattributed (the transformer's BF16 89.97% with
  // two busy loops beside the test), so the bound is 75%. On a GPU they are the
  // kernels' time, and the default preset's steps are the host issuing them: on an H200 the
  // categories held 2-5% of each step and "unattributed" (the device idle) the rest.
  for (const auto& cell : report.cells) {
    ASSERT_TRUE(cell.breakdown.has_value()) << cell.workload << "/" << cell.mode;
    double categorised = 0.0;
    for (const auto& category : cell.breakdown->categories) categorised += category.seconds_per_step;
    EXPECT_GT(categorised, 0.0) << cell.workload << "/" << cell.mode;
    if (cell.device == "cpu") {
      EXPECT_GE(categorised, 0.75 * cell.breakdown->step_time_s)
          << cell.workload << "/" << cell.mode << ": unattributed " << cell.breakdown->unattributed_s << " of "
          << cell.breakdown->step_time_s;
    }
    EXPECT_NEAR(categorised + cell.breakdown->unattributed_s, cell.breakdown->step_time_s,
                1e-9 * cell.breakdown->step_time_s);
  }

  // Every AMP cell gets findings with figures (the GEMM peaks, the shares, the ceiling); TF32 on a
  // GPU is FP32 on tensor cores, no autocast, and `explain` leaves it out.
  for (const auto& cell : report.cells) {
    if (!cell.settings.autocast) continue;
    const auto label = cell.workload + "/" + cell.mode + suffix;
    int with_figures = 0;
    for (const auto& finding : report.explanation) {
      if (finding.cell == label && !finding.evidence.empty()) ++with_figures;
    }
    EXPECT_GE(with_figures, 3) << label;
  }
  const auto json = run_process({AMPBENCH_CLI, "explain", path, "--cell", "transformer/bf16", "--format", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto findings = nlohmann::json::parse(json.out);
  ASSERT_FALSE(findings.empty());
  for (const auto& finding : findings) EXPECT_EQ(finding["cell"], "transformer/bf16" + suffix);
  EXPECT_EQ(run_process({AMPBENCH_CLI, "explain", path, "--format", "markdown"}).out.rfind("### Why\n", 0), 0u);

  // Bad input: one line naming the flag or file, exit 2.
  const auto unknown = run_process({AMPBENCH_CLI, "explain", path, "--cell", "resnet"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("--cell resnet: no AMP cell of"), std::string::npos) << unknown.err;
  const auto missing = run_process({AMPBENCH_CLI, "explain", "/nonexistent/report.json"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("/nonexistent/report.json"), std::string::npos) << missing.err;
  const auto format = run_process({AMPBENCH_CLI, "explain", path, "--format", "html"});
  EXPECT_EQ(format.exit_code, 2);
  EXPECT_NE(format.err.find("--format"), std::string::npos) << format.err;
}

}  // namespace
