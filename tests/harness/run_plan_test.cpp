// The plan's choice of preset (with --preset not given, the device's, said with its reason; a named
// preset is honoured and nothing is said) and its reading of --graphs.
#include <gtest/gtest.h>

#include "ampbench/harness/mode.h"
#include "ampbench/harness/run.h"
#include "ampbench/workloads/preset.h"

namespace {

using ampbench::harness::plan_run;

TEST(RunPlan, WithoutAPresetACpuRunUsesTheDefaultPresetAndSaysWhy) {
  ampbench::reports::RunConfig config;
  config.device = "cpu";
  ASSERT_EQ(config.preset, ampbench::workloads::kAutoPreset);
  const auto plan = plan_run(config);
  EXPECT_EQ(plan.config.preset, "default");
  EXPECT_EQ(plan.preset_choice.rfind("preset default: --preset not given and the device is cpu (", 0), 0u)
      << plan.preset_choice;
  EXPECT_EQ(plan.config.numerics_steps,
            ampbench::workloads::preset_info(ampbench::workloads::Preset::kDefault).numerics_steps);
}

TEST(RunPlan, ANamedPresetIsHonouredOnAnyDevice) {
  ampbench::reports::RunConfig config;
  config.device = "cpu";
  config.preset = "gpu";
  const auto plan = plan_run(config);
  EXPECT_EQ(plan.config.preset, "gpu");
  EXPECT_TRUE(plan.preset_choice.empty()) << plan.preset_choice;
}

TEST(RunPlan, TheDevicesPresetIsTheGpuOneOnCuda) {
  EXPECT_EQ(ampbench::workloads::preset_for_device(true), ampbench::workloads::Preset::kGpu);
  EXPECT_EQ(ampbench::workloads::preset_for_device(false), ampbench::workloads::Preset::kDefault);
}

std::string plan_error(const ampbench::reports::RunConfig& config) {
  try {
    (void)plan_run(config);
  } catch (const ampbench::reports::SettingError& error) {
    return error.what();
  }
  return "(planned)";
}

TEST(RunPlan, GraphsAreRefusedOnACpuAndGraphedModesAreNotNamed) {
  ampbench::reports::RunConfig config;
  config.device = "cpu";
  config.graphs = ampbench::reports::GraphExecution::kBoth;
  EXPECT_EQ(plan_error(config), "--graphs both: CUDA graphs need a CUDA device, and the device is cpu");
  config.graphs = ampbench::reports::GraphExecution::kOff;
  config.modes = {"fp32", "bf16-graphed"};
  EXPECT_EQ(plan_error(config).rfind("--modes bf16-graphed: needs a CUDA device", 0), 0u) << plan_error(config);
}

TEST(RunPlan, GraphsOnReplaceEachModeAndBothAddThemAfter) {
  using ampbench::harness::modes_with_graphs;
  using ampbench::reports::GraphExecution;
  const std::vector<std::string> eager{"fp32", "tf32", "fp16", "bf16"};
  EXPECT_EQ(modes_with_graphs(eager, GraphExecution::kOff), eager);
  EXPECT_EQ(modes_with_graphs(eager, GraphExecution::kOn),
            (std::vector<std::string>{"fp32-graphed", "tf32-graphed", "fp16-graphed", "bf16-graphed"}));
  EXPECT_EQ(modes_with_graphs({"fp32", "bf16"}, GraphExecution::kBoth),
            (std::vector<std::string>{"fp32", "bf16", "fp32-graphed", "bf16-graphed"}));
}

// A graphed mode is its eager twin's arithmetic, on CUDA only; the graphed FP32 is the reference of
// the graphed cells.
TEST(RunPlan, AGraphedModeIsItsEagerTwinReplayed) {
  using ampbench::harness::find_mode;
  const auto& graphed = find_mode("fp16-graphed");
  const auto& eager = find_mode("fp16");
  EXPECT_TRUE(graphed.graphed);
  EXPECT_TRUE(graphed.cuda_only);
  EXPECT_FALSE(eager.graphed);
  EXPECT_EQ(graphed.compute_dtype, eager.compute_dtype);
  EXPECT_EQ(graphed.grad_scaler, eager.grad_scaler);
  EXPECT_TRUE(ampbench::harness::is_reference_mode(find_mode("fp32-graphed")));
  EXPECT_FALSE(ampbench::harness::is_reference_mode(graphed));
  EXPECT_THROW((void)find_mode("fp16-graphed-graphed"), std::invalid_argument);
}

}  // namespace
