// One workload's modes, in this process, on the CPU: the meters, the loss, the scaler telemetry,
// the precision audit and the interleaved rounds each hold what the report promises. Sizes are the
// `seed` preset's (tiny), since fp16/bf16 GEMMs on an AVX2-only CPU are ~100x slower than fp32.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

#include "ampbench/harness/run.h"
#include "ampbench/harness/workload_task.h"
#include "ampbench/reports/derived_figures.h"
#include "ampbench/reports/stats.h"
#include "measure/interleaved_rounds.h"
#include "measure/interleaving_groups.h"
#include "measure/numerics_pass.h"

namespace {

using ampbench::harness::WorkloadTask;
using ampbench::reports::CellResult;
using ampbench::reports::CellStatus;

WorkloadTask tiny_task(const std::string& workload, std::vector<std::string> modes) {
  WorkloadTask task;
  task.config.device = "cpu";
  task.workload = workload;
  task.modes = std::move(modes);
  task.config.preset = "seed";
  task.config.warmup = 2;
  task.config.min_steps = 12;
  task.config.max_steps = 12;  // a fixed count, so the loss curves line up
  task.config.time_cap_s = 60.0;
  task.config.replicates = 1;  // the whole cell in this one call
  return task;
}

CellResult run_cell(const std::string& workload, const std::string& mode,
                    const std::function<void(WorkloadTask&)>& adjust = {}) {
  auto task = tiny_task(workload, {mode});
  if (adjust) adjust(task);
  return ampbench::harness::run_workload(task).front();
}

TEST(WorkloadRunner, Fp32SimpleNetTimesEveryStepAndItsLossFalls) {
  const auto result = run_cell("simplenet", "fp32");
  ASSERT_EQ(result.status, CellStatus::kOk) << result.error;
  EXPECT_EQ(result.step_times_s.size(), 12u);
  // Every step is in the loss curve: the warm-up, and each round's block's untimed first steps.
  ASSERT_TRUE(result.rounds.has_value());
  EXPECT_EQ(
      result.losses.size(),
      2u + 12u + static_cast<std::size_t>(result.rounds->untimed_steps_per_block) * result.rounds->step_time_s.size());
  EXPECT_LT(result.losses.back(), result.losses.front());
  EXPECT_EQ(result.throughput.stop_reasons,
            (ampbench::reports::StopReasonCounts{{ampbench::reports::StopReason::kStepCap, 1}}));
  EXPECT_EQ(result.throughput.step_time_s.count, 12);
  EXPECT_GT(result.throughput.samples_per_s, 0.0);
  EXPECT_DOUBLE_EQ(result.throughput.flops_per_step, 3.0 * 2 * 100 * 10 * 1);
  EXPECT_GT(result.memory.peak_tensor_bytes, 0);
  EXPECT_FALSE(result.settings.tf32_matmul);
  EXPECT_EQ(result.settings.float32_matmul_precision, "highest");
  EXPECT_FALSE(result.scaler.has_value());
  EXPECT_EQ(result.tensor_cores.status, ampbench::reports::MeasurementStatus::kUnavailable);
}

TEST(WorkloadRunner, ForcedOverflowMakesTheScalerSkipExactlyThoseSteps) {
  // The same cell without injection may skip steps of its own (fp16 at the default initial scale
  // 2^16 overflows SimpleNet's first step): the injected ones must come on top, exactly.
  const auto baseline = run_cell("simplenet", "fp16");
  ASSERT_EQ(baseline.status, CellStatus::kOk) << baseline.error;
  const auto result = run_cell("simplenet", "fp16", [](WorkloadTask& task) { task.inject_overflow_steps = {3, 7}; });
  ASSERT_EQ(result.status, CellStatus::kOk) << result.error;
  ASSERT_TRUE(result.scaler.has_value() && baseline.scaler.has_value());
  auto expected = baseline.scaler->skipped_steps;
  expected.insert(expected.end(), {3, 7});
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(result.scaler->skipped_steps, expected);
  ASSERT_EQ(result.scaler->scale.size(), result.losses.size());
  EXPECT_EQ(result.scaler->scale[4], result.scaler->scale[3] * 0.5);  // backed off after the overflow
  EXPECT_EQ(result.scaler->scale[8], result.scaler->scale[7] * 0.5);
  EXPECT_TRUE(std::isinf(result.losses[3]));
}

TEST(WorkloadRunner, Bf16AuditShowsTheMatmulsRanInLowPrecision) {
  const auto result = run_cell("simplenet", "bf16");
  ASSERT_EQ(result.status, CellStatus::kOk) << result.error;
  ASSERT_TRUE(result.precision.has_value());
  EXPECT_DOUBLE_EQ(result.precision->low_precision_flop_share, 1.0);
  const auto& ops = result.precision->ops;
  const auto addmm = std::find_if(ops.begin(), ops.end(), [](const auto& op) { return op.op == "addmm"; });
  ASSERT_NE(addmm, ops.end());
  EXPECT_EQ(addmm->output_dtype, "BFloat16");
}

TEST(WorkloadRunner, AnUnknownWorkloadIsAFailedCellNotAnException) {
  const auto result = run_cell("resnet9000", "fp32");
  EXPECT_EQ(result.status, CellStatus::kFailed);
  EXPECT_NE(result.error.find("unknown workload 'resnet9000'"), std::string::npos) << result.error;
}

// Convolutions and attention go through oneDNN, which has its own demands on the CPU allocator
// the memory meter installs: every workload must train in full and in low precision.
TEST(WorkloadRunner, ConvAndAttentionWorkloadsTrainInEveryPrecision) {
  for (const std::string workload : {"simplecnn", "transformer"}) {
    for (const std::string mode : {"fp32", "bf16", "fp16"}) {
      const auto result = run_cell(workload, mode, [](WorkloadTask& task) {
        task.config.batch = 2;
        task.config.warmup = 1;
        task.config.min_steps = 2;
        task.config.max_steps = 2;
      });
      EXPECT_EQ(result.status, CellStatus::kOk) << workload << " " << mode << ": " << result.error;
      EXPECT_GT(result.memory.peak_tensor_bytes, 0) << workload << " " << mode;
    }
  }
}

TEST(WorkloadRunner, AmpCellsAreRelatedToFp32WithIntervalsAndDivergence) {
  ampbench::reports::Report report;
  report.cells = ampbench::harness::run_workload(tiny_task("simplenet", {"fp32", "bf16"}));
  ampbench::reports::relate_to_fp32(report);
  const auto& bf16 = report.cells[1];
  ASSERT_TRUE(bf16.speedup_vs_fp32.has_value());
  EXPECT_LE(bf16.speedup_vs_fp32->ci_low, bf16.speedup_vs_fp32->value);
  EXPECT_GE(bf16.speedup_vs_fp32->ci_high, bf16.speedup_vs_fp32->value);
  EXPECT_FALSE(bf16.divergence.has_value());  // the timed steps never give divergence
}

TEST(WorkloadRunner, DivergenceComesFromTheNumericsPass) {
  auto task = tiny_task("simplenet", {"fp32", "bf16"});
  ampbench::reports::Report report;
  report.cells = ampbench::harness::run_workload(task);
  task.config.numerics_steps = 8;
  const auto numerics = ampbench::harness::run_numerics(task);
  ASSERT_EQ(numerics.size(), 2u);
  report.cells[0].numerics = numerics[0];
  report.cells[1].numerics = numerics[1];
  ampbench::reports::relate_to_fp32(report);
  const auto& bf16 = report.cells[1];
  ASSERT_TRUE(bf16.divergence.has_value());
  EXPECT_EQ(bf16.divergence->steps, 8);
  EXPECT_GT(bf16.divergence->final_floor, 0.0);
  EXPECT_NE(bf16.divergence->verdict, ampbench::reports::DivergenceVerdict::kNonFiniteLoss);
  EXPECT_FALSE(report.cells[0].divergence.has_value());
  // Without FP32's floor run there is no scale to judge on, so no figure at all.
  report.cells[0].numerics->floor.reset();
  report.cells[1].divergence.reset();
  ampbench::reports::relate_to_fp32(report);
  EXPECT_FALSE(report.cells[1].divergence.has_value());
}

TEST(WorkloadRunner, ModesAreTimedInTheSameRoundsAndPairedByRound) {
  auto task = tiny_task("simplenet", {"fp32", "fp16", "bf16"});
  task.config.round_steps = 3;
  task.config.min_rounds = 4;
  ampbench::reports::Report report;
  report.cells = ampbench::harness::run_workload(task);
  ASSERT_EQ(report.cells.size(), 3u);
  for (auto& cell : report.cells) {
    ASSERT_EQ(cell.status, CellStatus::kOk) << cell.mode << ": " << cell.error;
    ASSERT_TRUE(cell.rounds.has_value()) << cell.mode;
    // Every cell is estimated under the slow-machine rule; here every round counts, to see the
    // pairing itself (the rule has its own tests in derived_figures_test).
    EXPECT_EQ(cell.rounds->slow_machine_factor, ampbench::reports::kSlowMachineFactor);
    cell.rounds->slow_machine_factor.reset();
  }
  ampbench::reports::relate_to_fp32(report);
  for (const auto& cell : report.cells) {
    ASSERT_TRUE(cell.rounds.has_value()) << cell.mode;
    const auto& rounds = *cell.rounds;
    EXPECT_EQ(rounds.interleaved_modes, task.modes);
    EXPECT_EQ(rounds.steps_per_round, 3);
    EXPECT_EQ(rounds.untimed_steps_per_block, 1);           // on a CPU
    EXPECT_EQ(rounds.step_time_s.size(), 4u) << cell.mode;  // 12 steps, 3 per round
    EXPECT_EQ(rounds.probe_s.size(), 4u) << cell.mode;
    EXPECT_EQ(rounds.probe.rfind("float32 MLP training step", 0), 0u) << rounds.probe;
    EXPECT_EQ(rounds.step_round, (std::vector<std::int64_t>{0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3})) << cell.mode;
    EXPECT_EQ(rounds.step_time.rounds, 4);
    EXPECT_LE(rounds.step_time.ci_low, rounds.step_time.value);
    EXPECT_GE(rounds.step_time.ci_high, rounds.step_time.value);
    EXPECT_EQ(cell.throughput.stop_reasons,
              (ampbench::reports::StopReasonCounts{{ampbench::reports::StopReason::kStepCap, 1}}));
  }
  // Every mode trained the same steps on the same batches: the curves line up.
  EXPECT_EQ(report.cells[1].losses.size(), report.cells[0].losses.size());
  const auto& fp16 = report.cells[1];
  ASSERT_TRUE(fp16.speedup_vs_fp32.has_value());
  const double paired =
      ampbench::reports::paired_round_ratio(report.cells[0].rounds->step_time_s, fp16.rounds->step_time_s).value;
  EXPECT_DOUBLE_EQ(fp16.speedup_vs_fp32->value, paired);
}

// Another mode's tensors are live while a mode runs; its own peak must not see them, and must not
// depend on how many steps it ran (docs/performance.md: a kept 0-dim loss held its whole buffer, so
// the transformer's peak grew ~125 KiB a step).
TEST(WorkloadRunner, PeakMemoryIsTheModesOwnAndDoesNotGrowWithSteps) {
  const auto peak = [](std::vector<std::string> modes, std::int64_t steps) {
    auto task = tiny_task("transformer", std::move(modes));
    task.config.batch = 2;
    task.config.min_steps = steps;
    task.config.max_steps = steps;
    task.config.round_steps = steps;
    const auto cells = ampbench::harness::run_workload(task);
    for (const auto& cell : cells) EXPECT_EQ(cell.status, CellStatus::kOk) << cell.error;
    return cells.front().memory.peak_tensor_bytes;
  };
  const auto alone_short = peak({"fp32"}, 4);
  EXPECT_GT(alone_short, 0);
  EXPECT_EQ(peak({"fp32"}, 40), alone_short);
  EXPECT_EQ(peak({"fp32", "bf16"}, 4), alone_short);
}

TEST(InterleavedRounds, EverySlotVisitsEveryPositionAndGoesBothBeforeAndAfterEveryOther) {
  using ampbench::harness::detail::block_order;
  for (const std::size_t slots : {2u, 3u, 4u, 5u}) {
    std::vector<std::set<std::size_t>> positions(slots);
    std::set<std::pair<std::size_t, std::size_t>> before;  // (a, b): a ran before b in some pass
    for (std::int64_t pass = 0; pass < static_cast<std::int64_t>(2 * slots); ++pass) {
      const auto order = block_order(slots, pass);
      ASSERT_EQ(std::set<std::size_t>(order.begin(), order.end()).size(), slots);
      for (std::size_t position = 0; position < slots; ++position) {
        positions[order[position]].insert(position);
        for (std::size_t later = position + 1; later < slots; ++later) before.insert({order[position], order[later]});
      }
    }
    for (const auto& seen : positions) EXPECT_EQ(seen.size(), slots);
    EXPECT_EQ(before.size(), slots * (slots - 1)) << slots << " slots";
  }
}

// One untimed step after a switch on a CPU, two on a GPU (whose first step after one was slower).
TEST(InterleavedRounds, AGpuBlockStartsWithTwoUntimedStepsACpuBlockWithOne) {
  using ampbench::harness::detail::untimed_steps_per_block;
  EXPECT_EQ(untimed_steps_per_block(c10::Device(c10::kCPU)), 1);
  EXPECT_EQ(untimed_steps_per_block(c10::Device(c10::kCUDA, 0)), 2);
  EXPECT_EQ(untimed_steps_per_block(c10::Device(c10::kCUDA, 1)), 2);
}

TEST(InterleavedRounds, AutomaticRoundsAreAboutATwentiethOfTheCapAndAtMostASecond) {
  using ampbench::harness::detail::auto_steps_per_round;
  constexpr std::int64_t kMany = 1'000'000;
  EXPECT_EQ(auto_steps_per_round(0.01, 6.0, kMany), 30);     // 0.3 s rounds
  EXPECT_EQ(auto_steps_per_round(0.01, 600.0, kMany), 100);  // capped at 1 s
  EXPECT_EQ(auto_steps_per_round(2.0, 6.0, kMany), 1);       // a pass longer than a round: one step
  EXPECT_EQ(auto_steps_per_round(0.0, 6.0, kMany), 1);       // unknown (no warm-up)
  EXPECT_EQ(auto_steps_per_round(0.001, 6.0, 100), 5);       // the step cap binds first: 20 rounds of it
  EXPECT_EQ(auto_steps_per_round(0.001, 6.0, 10), 1);
}

TEST(InterleavedRounds, ExpectedRoundsAreTheTimeCapOverOneRoundsBlocksOrTheStepCapOverItsSteps) {
  using ampbench::harness::detail::expected_rounds;
  ampbench::harness::detail::RoundRules rules;
  rules.steps_per_round = 1;
  rules.untimed_steps_per_block = 1;
  rules.max_steps = 200;
  rules.time_cap_s = 3.6;
  // SimpleCNN on the Xeon with avx512_fp16: FP16's 1.1 s steps make each round 2.254 s.
  EXPECT_NEAR(expected_rounds(rules, {0.014, 1.1, 0.013}), 3.6 / 2.254, 1e-12);
  rules.steps_per_round = 4;  // without FP16: the time cap binds before the step cap (50 rounds)
  EXPECT_NEAR(expected_rounds(rules, {0.014, 0.013}), 3.6 / 0.135, 1e-12);
  rules.max_steps = 40;  // the step cap binds: ten rounds of four steps
  EXPECT_NEAR(expected_rounds(rules, {0.014, 0.013}), 10.0, 1e-12);
  EXPECT_NEAR(expected_rounds(rules, {0.0, 0.0}), 10.0, 1e-12);  // no warm-up to go by
}

// A stand-in for the runner's expected_rounds: a round of every mode's step, time cap 1 s.
double rounds_in_a_second(const std::vector<double>& steps, const std::vector<std::size_t>& group) {
  double round_s = 0.0;
  for (const auto index : group) round_s += steps[index];
  return 1.0 / round_s;
}

TEST(InterleavingGroups, AFarSlowerModeGoesApartOnlyWhereThatGivesTheOthersTheirRounds) {
  using ampbench::harness::detail::interleaving_groups;
  using Groups = std::vector<std::vector<std::size_t>>;
  const auto groups = [](const std::vector<double>& steps) {
    return interleaving_groups(steps, [&](const auto& group) { return rounds_in_a_second(steps, group); });
  };
  // Enough rounds together (1 / 0.09 = 11): all take turns.
  EXPECT_EQ(groups({0.03, 0.03, 0.03}), (Groups{{0, 1, 2}}));
  // 1 / 0.302 = 3.3 rounds together, 1 / 0.002 = 500 without the slowest: it goes apart.
  EXPECT_EQ(groups({0.001, 0.3, 0.001}), (Groups{{0, 2}, {1}}));
  // Without it the others would still get 1 / 0.2 = 5: apart would cost its pairing for nothing.
  EXPECT_EQ(groups({0.1, 0.3, 0.1}), (Groups{{0, 1, 2}}));
  // Only a far slower mode goes apart: 0.5 is not 10x 0.09, nor 0.09 10x 0.015, though without
  // both slower ones the others would get 1 / 0.03 = 33 rounds.
  EXPECT_EQ(groups({0.015, 0.09, 0.015, 0.5}), (Groups{{0, 1, 2, 3}}));
  // Two far slower modes: without the slowest the others would get 1 / 0.202 = 5, without both 500;
  // each goes apart, the slowest first.
  EXPECT_EQ(groups({0.001, 0.5, 0.2, 0.001}), (Groups{{0, 3}, {1}, {2}}));
  // Only as many as it takes: the second slowest (1 / 0.042 = 24 rounds without the slowest) stays.
  EXPECT_EQ(groups({0.001, 0.5, 0.04, 0.001}), (Groups{{0, 2, 3}, {1}}));
  // Two modes: the fast one alone still takes its rounds with the probe.
  EXPECT_EQ(groups({0.001, 0.3}), (Groups{{0}, {1}}));
  EXPECT_EQ(groups({0.3}), (Groups{{0}}));
}

}  // namespace
