// `ampbench run` through the real binary: bad input is one line naming the culprit, exit 2 and
// nothing written; a tiny real run writes a valid report; an aborting cell loses only itself.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include "ampbench/reports/report_json.h"
#include "support/process.h"
#include "support/scratch_dir.h"

namespace {

namespace fs = std::filesystem;
using ampbench::testing::run_process;

class RunCommand : public ::testing::Test {
 protected:
  // Runs `ampbench run ARGS --out DIR/out` and checks the bad-input contract.
  void expect_bad_input(std::vector<std::string> args, const std::string& culprit) {
    args.insert(args.begin(), {AMPBENCH_CLI, "run"});
    args.insert(args.end(), {"--out", out().string()});
    const auto result = run_process(args);
    EXPECT_EQ(result.exit_code, 2) << result.err;
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 2) << result.err;
    EXPECT_NE(result.err.find(culprit), std::string::npos) << "expected '" << culprit << "' in: " << result.err;
    EXPECT_FALSE(fs::exists(out())) << "bad input must write nothing";
    EXPECT_TRUE(result.out.empty());
  }

  fs::path write_file(const std::string& name, const std::string& content) const {
    std::ofstream(dir_ / name) << content;
    return dir_ / name;
  }

  [[nodiscard]] fs::path out() const { return dir_ / "out"; }

  // The seed preset's SimpleNet with a fixed, small number of steps: fast even where fp16/bf16
  // GEMMs take the slow path.
  [[nodiscard]] std::vector<std::string> tiny_run() const {
    return {AMPBENCH_CLI, "run",         "--workloads", "simplenet", "--preset", "seed",  "--warmup",
            "1",          "--min-steps", "8",           "--steps",   "8",        "--out", out().string()};
  }

  ampbench::testing::ScratchDir dir_;
};

TEST_F(RunCommand, UnknownWorkloadModeOrPresetIsBadInput) {
  expect_bad_input({"--workloads", "resnet9000"}, "unknown workload 'resnet9000'");
  expect_bad_input({"--modes", "fp8"}, "unknown mode 'fp8'");
  expect_bad_input({"--preset", "huge"}, "unknown preset 'huge'");
}

TEST_F(RunCommand, NonPositiveStepsOrBatchIsBadInput) {
  expect_bad_input({"--steps", "0"}, "--steps must be positive");
  expect_bad_input({"--batch", "-4"}, "--batch must be positive");
}

TEST_F(RunCommand, BadConfigFilesAreBadInput) {
  expect_bad_input({"--config", (dir_ / "missing.json").string()}, "missing.json: cannot read");
  expect_bad_input({"--config", write_file("broken.json", "{\"steps\": ").string()}, "not valid JSON");
  expect_bad_input({"--config", write_file("unknown.json", "{\"stepz\": 3}").string()}, "unknown key 'stepz'");
  expect_bad_input({"--config", write_file("type.json", "{\"steps\": \"many\"}").string()},
                   "'steps' must be an integer");
}

TEST_F(RunCommand, CudaModeOnTheCpuIsBadInput) {
  expect_bad_input({"--device", "cpu", "--modes", "tf32"}, "--modes tf32: needs a CUDA device");
}

TEST_F(RunCommand, UnwritableOutIsBadInput) {
  const auto file = write_file("a-file", "x");
  const auto result = run_process({AMPBENCH_CLI, "run", "--out", (file / "out").string()});
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_NE(result.err.find("--out"), std::string::npos) << result.err;
}

TEST_F(RunCommand, TinyRunWritesAReportWhereFp32DescendsAndAmpIsRelatedToIt) {
  const auto result = run_process(tiny_run());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto report = ampbench::reports::read_report(out() / "report.json");
  ASSERT_EQ(report.cells.size(), 3u);
  EXPECT_EQ(report.cells[0].mode, "fp32");
  EXPECT_LT(report.cells[0].losses.back(), report.cells[0].losses.front());
  // The roofline: one measured GEMM peak per dtype on the run's device ...
  std::set<std::string> expected_dtypes = {"float32", "float16", "bfloat16"};
  if (report.config.device != "cpu") expected_dtypes.insert("tfloat32");
  std::set<std::string> dtypes;
  for (const auto& peak : report.environment.gemm_peaks) {
    EXPECT_EQ(peak.device, report.config.device);
    EXPECT_EQ(peak.status, "measured") << peak.dtype << ": " << peak.reason;
    EXPECT_GT(peak.flops_per_s, 0.0) << peak.dtype;
    EXPECT_GE(peak.matrix_size, 128) << peak.dtype;
    dtypes.insert(peak.dtype);
  }
  EXPECT_EQ(dtypes, expected_dtypes);
  for (const auto& cell : report.cells) {
    EXPECT_EQ(cell.status, "ok") << cell.mode << ": " << cell.error;
    // ... and every cell a plausible fraction of its dtype's (timing noise may lift one above 1).
    ASSERT_TRUE(cell.throughput.fraction_of_peak.has_value()) << cell.mode;
    EXPECT_GT(*cell.throughput.fraction_of_peak, 0.0) << cell.mode;
    EXPECT_LE(*cell.throughput.fraction_of_peak, 1.5) << cell.mode;
    if (cell.mode == "fp32") continue;
    ASSERT_TRUE(cell.speedup_vs_fp32.has_value()) << cell.mode;
    EXPECT_LE(cell.speedup_vs_fp32->ci_low, cell.speedup_vs_fp32->ci_high);
    ASSERT_TRUE(cell.divergence.has_value()) << cell.mode;
    EXPECT_EQ(cell.divergence->verdict, "within bound") << cell.mode;
  }
  EXPECT_NE(result.out.find("simplenet"), std::string::npos) << result.out;  // the table
  EXPECT_TRUE(fs::exists(out() / "report.md"));
  EXPECT_TRUE(fs::exists(out() / "report.html"));
  const auto schema = run_process(
      {AMPBENCH_PYTHON, AMPBENCH_SCHEMA_VALIDATOR, AMPBENCH_REPORT_SCHEMA, (out() / "report.json").string()});
  EXPECT_EQ(schema.exit_code, 0) << schema.out << schema.err;
}

TEST_F(RunCommand, AnAbortingCellLosesOnlyItself) {
  const auto result = run_process(tiny_run(), {"AMPBENCH_ABORT_CELL=simplenet/bf16"});
  EXPECT_EQ(result.exit_code, 1) << result.err;
  const auto report = ampbench::reports::read_report(out() / "report.json");
  ASSERT_EQ(report.cells.size(), 3u);
  for (const auto& cell : report.cells) {
    if (cell.mode == "bf16") {
      EXPECT_EQ(cell.status, "failed");
      EXPECT_NE(cell.error.find("signal 6"), std::string::npos) << cell.error;
    } else {
      EXPECT_EQ(cell.status, "ok") << cell.mode << ": " << cell.error;
    }
  }
}

}  // namespace
