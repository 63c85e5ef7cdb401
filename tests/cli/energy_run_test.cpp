// Energy through the real binary: a run on this CPU records what measured its energy, or exactly
// why nothing could (on most machines RAPL's files are root's, or the kernel has no powercap), and a
// cell carries energy only where it was measured, one figure per round. A bad --throttle-threshold
// is refused before anything runs.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "ampbench/reports/report_json.h"
#include "support/process.h"
#include "support/scratch_dir.h"

namespace {

namespace fs = std::filesystem;
using ampbench::testing::run_process;

TEST(EnergyRun, ACpuRunReportsEnergyOrSaysWhyNot) {
  ampbench::testing::ScratchDir dir;
  const auto out = dir.path() / "out";
  const auto result =
      run_process({AMPBENCH_CLI,   "run",       "--workloads",      "simplenet", "--preset",       "seed",
                   "--modes",      "fp32,bf16", "--warmup",         "1",         "--steps",        "6",
                   "--replicates", "1",         "--numerics-steps", "0",         "--no-breakdown", "--device",
                   "cpu",          "--out",     out.string()});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto report = ampbench::reports::read_report(out / "report.json");
  ASSERT_TRUE(report.environment.energy_meter.has_value());
  const auto& meter = *report.environment.energy_meter;
  EXPECT_EQ(meter.device, "cpu");
  for (const auto& cell : report.cells) {
    ASSERT_EQ(cell.status, ampbench::reports::CellStatus::kOk) << cell.error;
    EXPECT_FALSE(cell.rounds->device.has_value()) << "a CPU has no NVML state";
    if (meter.status == ampbench::reports::MeasurementStatus::kMeasured) {
      ASSERT_TRUE(cell.energy.has_value()) << cell.mode;
      EXPECT_EQ(cell.energy->round_joules.size(), cell.rounds->step_time_s.size());
    } else {
      EXPECT_FALSE(cell.energy.has_value()) << cell.mode;
    }
  }
  if (meter.status != ampbench::reports::MeasurementStatus::kMeasured) {
    EXPECT_NE(meter.reason.find("/sys/class/powercap"), std::string::npos) << meter.reason;
    EXPECT_NE(result.out.find("Energy: not measured on cpu: /sys/class/powercap"), std::string::npos) << result.out;
  }
}

TEST(EnergyRun, AThrottleThresholdOutsideItsRangeIsRefused) {
  ampbench::testing::ScratchDir dir;
  for (const auto* value : {"0", "101", "nan"}) {
    const auto out = dir.path() / "out";
    const auto result = run_process({AMPBENCH_CLI, "run", "--throttle-threshold", value, "--out", out.string()});
    EXPECT_EQ(result.exit_code, 2) << value;
    EXPECT_NE(result.err.find("--throttle-threshold"), std::string::npos) << result.err;
    EXPECT_FALSE(fs::exists(out)) << value;
  }
}

}  // namespace
