// One cell, in this process, on the CPU: the meters, the loss, the scaler telemetry and the
// precision audit each hold what the report promises. Sizes are the `seed` preset's (tiny), since
// fp16/bf16 GEMMs on an AVX2-only CPU are ~100x slower than fp32.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "ampbench/harness/cell_runner.h"
#include "ampbench/harness/suite.h"

namespace {

using ampbench::harness::CellSpec;
using ampbench::harness::run_cell;

CellSpec tiny_cell(const std::string& workload, const std::string& mode) {
  CellSpec spec;
  spec.workload = workload;
  spec.mode = mode;
  spec.preset = "seed";
  spec.warmup = 2;
  spec.min_steps = 12;
  spec.max_steps = 12;  // a fixed count, so the loss curves line up
  spec.time_cap_s = 60.0;
  return spec;
}

TEST(CellRunner, Fp32SimpleNetTimesEveryStepAndItsLossFalls) {
  const auto result = run_cell(tiny_cell("simplenet", "fp32"));
  ASSERT_EQ(result.status, "ok") << result.error;
  EXPECT_EQ(result.step_times_s.size(), 12u);
  EXPECT_EQ(result.losses.size(), 14u);  // warm-up steps are in the loss curve
  EXPECT_LT(result.losses.back(), result.losses.front());
  EXPECT_EQ(result.throughput.stop_reason, "step cap");
  EXPECT_EQ(result.throughput.step_time_s.count, 12);
  EXPECT_GT(result.throughput.samples_per_s, 0.0);
  EXPECT_DOUBLE_EQ(result.throughput.flops_per_step, 3.0 * 2 * 100 * 10 * 1);
  EXPECT_GT(result.memory.peak_tensor_bytes, 0);
  EXPECT_FALSE(result.settings.tf32_matmul);
  EXPECT_EQ(result.settings.float32_matmul_precision, "highest");
  EXPECT_FALSE(result.scaler.has_value());
  EXPECT_EQ(result.tensor_cores.status, "unavailable");
}

TEST(CellRunner, ForcedOverflowMakesTheScalerSkipExactlyThoseSteps) {
  // The same cell without injection may skip steps of its own (fp16 at the default initial scale
  // 2^16 overflows SimpleNet's first step): the injected ones must come on top, exactly.
  const auto baseline = run_cell(tiny_cell("simplenet", "fp16"));
  ASSERT_EQ(baseline.status, "ok") << baseline.error;
  auto spec = tiny_cell("simplenet", "fp16");
  spec.inject_overflow_steps = {3, 7};
  const auto result = run_cell(spec);
  ASSERT_EQ(result.status, "ok") << result.error;
  ASSERT_TRUE(result.scaler.has_value() && baseline.scaler.has_value());
  auto expected = baseline.scaler->skipped_steps;
  expected.insert(expected.end(), {3, 7});
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(result.scaler->skipped_steps, expected);
  ASSERT_EQ(result.scaler->scale.size(), 14u);
  EXPECT_EQ(result.scaler->scale[4], result.scaler->scale[3] * 0.5);  // backed off after the overflow
  EXPECT_EQ(result.scaler->scale[8], result.scaler->scale[7] * 0.5);
  EXPECT_TRUE(std::isinf(result.losses[3]));
}

TEST(CellRunner, Bf16AuditShowsTheMatmulsRanInLowPrecision) {
  const auto result = run_cell(tiny_cell("simplenet", "bf16"));
  ASSERT_EQ(result.status, "ok") << result.error;
  ASSERT_TRUE(result.precision.has_value());
  EXPECT_DOUBLE_EQ(result.precision->low_precision_flop_share, 1.0);
  const auto& ops = result.precision->ops;
  const auto addmm = std::find_if(ops.begin(), ops.end(), [](const auto& op) { return op.op == "addmm"; });
  ASSERT_NE(addmm, ops.end());
  EXPECT_EQ(addmm->output_dtype, "BFloat16");
}

TEST(CellRunner, AnUnknownWorkloadIsAFailedCellNotAnException) {
  const auto result = run_cell(tiny_cell("resnet9000", "fp32"));
  EXPECT_EQ(result.status, "failed");
  EXPECT_NE(result.error.find("unknown workload 'resnet9000'"), std::string::npos) << result.error;
}

// Convolutions and attention go through oneDNN, which has its own demands on the CPU allocator
// the memory meter installs: every workload must train in full and in low precision.
TEST(CellRunner, ConvAndAttentionWorkloadsTrainInEveryPrecision) {
  for (const std::string workload : {"simplecnn", "transformer"}) {
    for (const std::string mode : {"fp32", "bf16", "fp16"}) {
      auto spec = tiny_cell(workload, mode);
      spec.batch = 2;
      spec.warmup = 1;
      spec.min_steps = 2;
      spec.max_steps = 2;
      const auto result = run_cell(spec);
      EXPECT_EQ(result.status, "ok") << workload << " " << mode << ": " << result.error;
      EXPECT_GT(result.memory.peak_tensor_bytes, 0) << workload << " " << mode;
    }
  }
}

TEST(Suite, AmpCellsAreRelatedToFp32WithIntervalsAndDivergence) {
  ampbench::reports::Report report;
  report.cells.push_back(run_cell(tiny_cell("simplenet", "fp32")));
  report.cells.push_back(run_cell(tiny_cell("simplenet", "bf16")));
  ampbench::harness::relate_to_fp32(report);
  const auto& bf16 = report.cells[1];
  ASSERT_TRUE(bf16.speedup_vs_fp32.has_value());
  EXPECT_LE(bf16.speedup_vs_fp32->ci_low, bf16.speedup_vs_fp32->value);
  EXPECT_GE(bf16.speedup_vs_fp32->ci_high, bf16.speedup_vs_fp32->value);
  ASSERT_TRUE(bf16.divergence.has_value());
  EXPECT_EQ(bf16.divergence->steps_compared, 14);
  EXPECT_EQ(bf16.divergence->verdict, "within bound");
  EXPECT_FALSE(report.cells[0].divergence.has_value());
}

}  // namespace
