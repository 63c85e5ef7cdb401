// `ampbench run` through the real binary: bad input is one line naming the culprit, exit 2 and
// nothing written; a tiny real run writes a valid report; an aborting cell loses only itself.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <set>

#include "ampbench/reports/report_json.h"
#include "support/process.h"
#include "support/scratch_dir.h"

namespace {

namespace fs = std::filesystem;
using ampbench::reports::CellStatus;
using ampbench::reports::DivergenceVerdict;
using ampbench::testing::run_process;

// The modes a run without --modes measures: TF32 too where the device is a GPU (on "auto" the GPU
// kit's machine picks its GPU, as its first run of this suite there showed).
std::vector<std::string> default_modes(const std::string& device) {
  if (device == "cpu") return {"fp32", "fp16", "bf16"};
  return {"fp32", "tf32", "fp16", "bf16"};
}

// Whether a GEMM size is one the peak could have timed (128 doubled) within two doublings of
// another such size.
bool within_two_doublings(std::int64_t size, std::int64_t other) {
  const auto doubled_128 = [](std::int64_t n) { return n >= 128 && n % 128 == 0 && ((n / 128) & (n / 128 - 1)) == 0; };
  if (!doubled_128(size) || !doubled_128(other)) return false;
  return std::max(size, other) <= 4 * std::min(size, other);
}

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

// CUDA graphs: an unknown setting, a CPU, several ranks and a graphed mode named in --modes are
// refused before anything runs.
TEST_F(RunCommand, GraphsOnACpuOrWithRanksIsBadInput) {
  expect_bad_input({"--graphs", "sometimes"}, "--graphs");
  expect_bad_input({"--device", "cpu", "--graphs", "on"}, "--graphs on: CUDA graphs need a CUDA device");
  expect_bad_input({"--graphs", "both", "--ranks", "2"}, "--graphs both with --ranks 2");
  expect_bad_input({"--device", "cpu", "--modes", "bf16-graphed"}, "--modes bf16-graphed: needs a CUDA device");
}

// Without --preset a run uses the preset sized for its device and says so first; the report keeps it.
TEST_F(RunCommand, WithoutAPresetTheDevicesIsUsedAndNamed) {
  const auto result = run_process({AMPBENCH_CLI,     "run",   "--device",     "cpu", "--workloads",      "simplenet",
                                   "--modes",        "fp32",  "--warmup",     "1",   "--min-steps",      "4",
                                   "--steps",        "4",     "--replicates", "1",   "--numerics-steps", "0",
                                   "--no-breakdown", "--out", out().string()});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.err.rfind("preset default: --preset not given and the device is cpu (", 0), 0u) << result.err;
  const auto report = ampbench::reports::read_report(out() / "report.json");
  EXPECT_EQ(report.config.preset, "default");
  ASSERT_EQ(report.cells.size(), 1u);
  EXPECT_EQ(report.cells[0].preset, "default");
}

TEST_F(RunCommand, NonPositiveStepsOrBatchIsBadInput) {
  expect_bad_input({"--steps", "0"}, "--steps must be positive");
  expect_bad_input({"--batch", "-4"}, "--batch must be positive");
  expect_bad_input({"--numerics-steps", "-1"}, "--numerics-steps must be in [0, 1000000], got -1");
}

// --numerics-steps 0 turns the pass off: no curves, and no divergence figure without them.
TEST_F(RunCommand, NumericsStepsZeroMeansNoPassAndNoDivergence) {
  auto command = tiny_run();
  command.insert(command.end(), {"--numerics-steps", "0"});
  const auto result = run_process(command);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.err.find("numerics pass"), std::string::npos) << result.err;
  const auto report = ampbench::reports::read_report(out() / "report.json");
  EXPECT_EQ(report.config.numerics_steps, 0);
  for (const auto& cell : report.cells) {
    EXPECT_FALSE(cell.numerics.has_value()) << cell.mode;
    EXPECT_FALSE(cell.divergence.has_value()) << cell.mode;
  }
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
  ASSERT_EQ(report.config.modes, default_modes(report.config.device));
  ASSERT_EQ(report.cells.size(), report.config.modes.size());
  EXPECT_EQ(report.cells[0].mode, "fp32");
  EXPECT_LT(report.cells[0].losses.back(), report.cells[0].losses.front());
  // The roofline: one measured GEMM peak per dtype on the run's device ...
  std::set<std::string> expected_dtypes = {"float32", "float16", "bfloat16"};
  if (report.config.device != "cpu") expected_dtypes.insert("tfloat32");
  std::set<std::string> dtypes;
  for (const auto& peak : report.environment.gemm_peaks) {
    EXPECT_EQ(peak.device, report.config.device);
    EXPECT_EQ(peak.status, ampbench::reports::MeasurementStatus::kMeasured) << peak.dtype << ": " << peak.reason;
    EXPECT_GT(peak.flops_per_s, 0.0) << peak.dtype;
    EXPECT_GE(peak.matrix_size, 128) << peak.dtype;
    // ... and each other dtype's speed against float32's, paired over the interleaved rounds.
    EXPECT_EQ(peak.versus_float32.has_value(), peak.dtype != "float32") << peak.dtype;
    if (peak.versus_float32) {
      EXPECT_EQ(peak.versus_float32->rounds, 12) << peak.dtype;
      EXPECT_GT(peak.versus_float32->speed.ci_low, 0.0) << peak.dtype;
      EXPECT_LE(peak.versus_float32->speed.ci_low, peak.versus_float32->speed.value) << peak.dtype;
      EXPECT_LE(peak.versus_float32->speed.value, peak.versus_float32->speed.ci_high) << peak.dtype;
      // Paired at a size both were timed at (0 only where they share none). Each dtype is timed at
      // sizing's best size and its neighbours, three doublings apart at most, and its peak is one
      // of them: the paired size is a power-of-two multiple of 128 within 4x of both peaks' sizes
      // (one CI run paired float16 at 1024 with its peak at 256, sizing's best at 512).
      const auto paired = peak.versus_float32->matrix_size;
      if (paired != 0) {
        for (const auto& other : report.environment.gemm_peaks) {
          if (other.dtype != peak.dtype && other.dtype != "float32") continue;
          EXPECT_TRUE(within_two_doublings(paired, other.matrix_size))
              << peak.dtype << " paired at " << paired << ", " << other.dtype << "'s peak at " << other.matrix_size;
        }
      }
    }
    EXPECT_NE(peak.method.find("12 rounds interleaved with the other dtypes"), std::string::npos) << peak.method;
    // The size the peak stands at is the one the rounds chose.
    const auto size = std::to_string(peak.matrix_size);
    EXPECT_NE(peak.method.find(size + "x" + size + " fastest by its median"), std::string::npos) << peak.method;
    dtypes.insert(peak.dtype);
  }
  EXPECT_EQ(dtypes, expected_dtypes);
  for (const auto& cell : report.cells) {
    EXPECT_EQ(cell.status, CellStatus::kOk) << cell.mode << ": " << cell.error;
    // ... and every cell a plausible fraction of its dtype's (timing noise may lift one above 1).
    ASSERT_TRUE(cell.throughput.fraction_of_peak.has_value()) << cell.mode;
    EXPECT_GT(*cell.throughput.fraction_of_peak, 0.0) << cell.mode;
    EXPECT_LE(*cell.throughput.fraction_of_peak, 1.5) << cell.mode;
    if (cell.mode == "fp32") continue;
    ASSERT_TRUE(cell.speedup_vs_fp32.has_value()) << cell.mode;
    EXPECT_LE(cell.speedup_vs_fp32->ci_low, cell.speedup_vs_fp32->ci_high);
    ASSERT_TRUE(cell.divergence.has_value()) << cell.mode;
    // Within the floor, fp16 too: its GradScaler's start-up (batch 0 overflows at 2^16) is found
    // before the pass. Trained from 2^16, it skipped step 0 and lagged a step: 5% of the eval loss,
    // 1.2x the floor on a CPU and 4.7x ("diverged") on an H200, whose floor is 1%.
    EXPECT_EQ(cell.divergence->verdict, DivergenceVerdict::kWithinFloor)
        << cell.mode << ": " << cell.divergence->final_relative_difference << " vs " << cell.divergence->final_floor;
    EXPECT_EQ(cell.divergence->steps, 64);  // the seed preset's numerics pass
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
  const auto modes = default_modes(report.config.device);
  ASSERT_EQ(report.config.modes, modes);
  ASSERT_EQ(report.cells.size(), modes.size());
  for (const auto& cell : report.cells) {
    if (cell.mode == "bf16") {
      EXPECT_EQ(cell.status, CellStatus::kFailed);
      EXPECT_NE(cell.error.find("signal 6"), std::string::npos) << cell.error;
    } else {
      EXPECT_EQ(cell.status, CellStatus::kOk) << cell.mode << ": " << cell.error << "\nstderr:\n" << result.err;
    }
  }
  // The first worker died with every mode in it; they ran again alone, and the report says so.
  ASSERT_EQ(report.reruns.size(), 1u);
  const auto& rerun = report.reruns.front();
  EXPECT_EQ(rerun.workload, "simplenet");
  EXPECT_EQ(rerun.replicate, 0);
  EXPECT_EQ(rerun.modes, modes);
  EXPECT_EQ(rerun.rerun_modes, rerun.modes);
  EXPECT_NE(rerun.reason.find("signal 6"), std::string::npos) << rerun.reason;
  EXPECT_NE(result.out.find("Reruns (these cells mix rounds timed together and alone): simplenet, worker 1"),
            std::string::npos)
      << result.out;
  // check says which cells' figures include it, against a report without one as well as itself.
  const auto check = run_process({AMPBENCH_CLI, "check", "--baseline", (out() / "report.json").string(), "--current",
                                  (out() / "report.json").string()});
  std::string together;
  for (const auto& mode : modes) together += (together.empty() ? "" : ", ") + mode;
  EXPECT_NE(check.out.find("figures include a rerun (current: worker 1 (" + together + " together) ended"),
            std::string::npos)
      << check.out << check.err;
}

// A workload whose only mode aborts in its first worker is not run again, and its cells keep
// their place: the report lists workloads in the order asked, not the order they finished.
TEST_F(RunCommand, AWorkloadThatFailsInItsFirstWorkerIsNotRetriedAndKeepsItsPlace) {
  const auto result =
      run_process({AMPBENCH_CLI, "run", "--workloads", "simplenet,transformer", "--modes", "fp32", "--preset", "seed",
                   "--warmup", "1", "--steps", "4", "--replicates", "2", "--out", out().string()},
                  {"AMPBENCH_ABORT_CELL=transformer/fp32"});
  EXPECT_EQ(result.exit_code, 1) << result.err;
  const auto report = ampbench::reports::read_report(out() / "report.json");
  ASSERT_EQ(report.cells.size(), 2u);
  EXPECT_EQ(report.cells[0].workload, "simplenet");
  // ASSERT: a failed cell has no rounds to read (on an H200 this test crashed there, not failed).
  ASSERT_EQ(report.cells[0].status, CellStatus::kOk) << report.cells[0].error;
  EXPECT_EQ(report.cells[0].rounds->round_replicate.back(), 1);
  EXPECT_EQ(report.cells[1].workload, "transformer");
  EXPECT_EQ(report.cells[1].status, CellStatus::kFailed);
  EXPECT_EQ(report.cells[1].error.find("replicate"), std::string::npos) << "failed in the first worker";
}

// Numbers are decimal, whole, in range, and named when they are not (issue "Reliability" 5).
TEST_F(RunCommand, NumbersAreParsedStrictlyAndBounded) {
  expect_bad_input({"--seed", "18446744073709551615"}, "--seed: '18446744073709551615' is out of range");
  expect_bad_input({"--seed", "0x10"}, "--seed: '0x10' is not a decimal integer");
  expect_bad_input({"--threads", "4294967297"}, "--threads: '4294967297' is out of range");
  expect_bad_input({"--threads", "10000"}, "--threads must be in [0, 1024], got 10000");
  expect_bad_input({"--time-cap", "1e400"}, "--time-cap: '1e400' is out of range");
  expect_bad_input({"--time-cap", "nan"}, "--time-cap: 'nan' is not finite");
  expect_bad_input({"--warmup", "100001"}, "--warmup must be in [0, 100000]");
  expect_bad_input({"--steps", "3x"}, "--steps: '3x' is not a decimal integer");
  expect_bad_input({"--workloads", "simplenet,simplenet"}, "--workloads: 'simplenet' is listed twice");
  expect_bad_input({"--modes", "fp32,bf16,fp32"}, "--modes: 'fp32' is listed twice");
  expect_bad_input({"--min-steps", "9", "--steps", "3"}, "--min-steps (9) must not exceed --steps (3)");
  expect_bad_input({"--replicates", "0"}, "--replicates must be in [1, 100], got 0");
  expect_bad_input({"--replicates", "5", "--steps", "3"}, "--replicates (5) must not exceed --steps (3)");
  expect_bad_input({"--steps", "3", "--steps", "4"}, "--steps");  // given twice
}

// `--steps 3` alone lowers the default --min-steps and --replicates with it: no complaint about a
// flag never given;
// and a leading zero is decimal, not octal.
TEST_F(RunCommand, StepsAloneAndLeadingZerosMeanWhatTheySay) {
  const auto result = run_process({AMPBENCH_CLI, "run", "--workloads", "simplenet", "--preset", "seed", "--warmup", "1",
                                   "--steps", "3", "--seed", "010", "--modes", "fp32", "--out", out().string()});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto report = ampbench::reports::read_report(out() / "report.json");
  EXPECT_EQ(report.config.max_steps, 3);
  EXPECT_EQ(report.config.min_steps, 3);
  EXPECT_EQ(report.config.replicates, 3);  // one step for each worker
  EXPECT_EQ(report.config.seed, 10);
}

// The config file goes through the same table as the flags and the report.
TEST_F(RunCommand, ConfigFileKeysAreTheReportsAndValidatedLikeFlags) {
  expect_bad_input({"--config", write_file("range.json", "{\"threads\": 100000}").string()},
                   "--threads must be in [0, 1024]");
  expect_bad_input({"--config", write_file("list.json", "{\"modes\": \"fp32\"}").string()},
                   "'modes' must be an array of strings");
}

// The --no-* flags come from the field table like every other flag and override the file's keys.
TEST_F(RunCommand, OffSwitchesTurnTheirSettingOffOverTheConfigFile) {
  EXPECT_EQ(ampbench::reports::flag_of(&ampbench::reports::RunConfig::isolate), "--no-isolate");
  EXPECT_EQ(ampbench::reports::flag_of(&ampbench::reports::RunConfig::breakdown), "--no-breakdown");
  auto args = tiny_run();
  const auto file = write_file("on.json", R"({"isolate": true, "breakdown": true, "numerics_steps": 0})");
  args.insert(args.end(), {"--modes", "fp32", "--config", file.string(), "--no-breakdown", "--no-isolate"});
  const auto result = run_process(args);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto report = ampbench::reports::read_report(out() / "report.json");
  EXPECT_FALSE(report.config.isolate);
  EXPECT_FALSE(report.config.breakdown);
  EXPECT_TRUE(report.config.cupti);
  ASSERT_EQ(report.cells.size(), 1u);
  EXPECT_FALSE(report.cells[0].breakdown.has_value());
}

// A worker that outlives --worker-timeout is killed; its cells fail with the reason, the run goes
// on and writes its report. One worker asked for 100,000 transformer steps runs for its whole 30 s
// time cap on any CPU (1,000 split over 5 workers fitted in 2 s on a quiet machine).
TEST_F(RunCommand, AHungWorkerIsKilledAndItsCellsFail) {
  const auto result = run_process(
      {AMPBENCH_CLI,       "run", "--workloads", "transformer", "--modes", "fp32",   "--preset",     "default",
       "--time-cap",       "30",  "--min-steps", "100000",      "--steps", "100000", "--replicates", "1",
       "--worker-timeout", "2",   "--out",       out().string()});
  EXPECT_EQ(result.exit_code, 1) << result.err;
  const auto report = ampbench::reports::read_report(out() / "report.json");
  ASSERT_EQ(report.cells.size(), 1u);
  EXPECT_EQ(report.cells[0].status, CellStatus::kFailed);
  EXPECT_NE(report.cells[0].error.find("timed out after 2 s"), std::string::npos) << report.cells[0].error;
}

// An error that is ampbench's own fault exits 3, never 1 (a verdict) or 2 (the input's fault): a
// worker started by hand has no result pipe to write to.
TEST(CliExitCodes, AnInternalErrorExitsThree) {
  const auto result =
      run_process({"/bin/sh", "-c", std::string("exec 3>&-; '") + AMPBENCH_CLI + "' cell-worker </dev/null"});
  EXPECT_EQ(result.exit_code, 3) << result.err;
  EXPECT_NE(result.err.find("internal error"), std::string::npos) << result.err;
}

}  // namespace
