// A workload's worker processes (replicates) joined into one cell per mode, and a whole run with
// several of them: rounds renumbered and tagged, intervals over replicates, failures kept.
#include <gtest/gtest.h>

#include "ampbench/harness/run.h"
#include "ampbench/reports/derived_figures.h"
#include "ampbench/reports/stats.h"
#include "run/replicates.h"

namespace {

using ampbench::harness::detail::join_replicates;
using ampbench::reports::CellResult;
using ampbench::reports::CellStatus;

// A timed cell as one worker returns it: two steps in each of `medians.size()` rounds.
CellResult worker_cell(const std::string& mode, std::int64_t replicate, const std::vector<double>& medians) {
  CellResult cell;
  cell.workload = "simplenet";
  cell.mode = mode;
  cell.device = "cpu";
  cell.preset = "seed";
  cell.losses = {static_cast<double>(replicate + 1)};
  cell.throughput.samples_per_step = 4;
  cell.throughput.stop_reasons = {
      {replicate == 0 ? ampbench::reports::StopReason::kStepCap : ampbench::reports::StopReason::kTimeCap, 1}};
  cell.memory.peak_tensor_bytes = 1000 + replicate;
  ampbench::reports::Rounds rounds;
  rounds.interleaved_modes = {"fp32", "bf16"};
  rounds.steps_per_round = 2;
  for (std::size_t round = 0; round < medians.size(); ++round) {
    cell.step_times_s.insert(cell.step_times_s.end(), 2, medians[round]);
    rounds.step_round.insert(rounds.step_round.end(), 2, static_cast<std::int64_t>(round));
    rounds.step_time_s.push_back(medians[round]);
    rounds.probe_s.push_back(0.001);
    rounds.round_replicate.push_back(replicate);
  }
  cell.rounds = rounds;
  return cell;
}

TEST(JoinReplicates, RoundsAreRenumberedTaggedAndEstimatedOverReplicates) {
  const auto joined = join_replicates({{worker_cell("fp32", 0, {1.0, 4.0}), worker_cell("bf16", 0, {1.0, 1.0})},
                                       {worker_cell("fp32", 1, {2.0, 8.0}), worker_cell("bf16", 1, {1.0, 1.0})},
                                       {worker_cell("fp32", 2, {4.0, 16.0}), worker_cell("bf16", 2, {1.0, 1.0})}});
  ASSERT_EQ(joined.size(), 2u);
  const auto& fp32 = joined[0];
  ASSERT_EQ(fp32.status, CellStatus::kOk) << fp32.error;
  ASSERT_TRUE(fp32.rounds.has_value());
  const auto& rounds = *fp32.rounds;
  EXPECT_EQ(rounds.step_round, (std::vector<std::int64_t>{0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5}));
  EXPECT_EQ(rounds.round_replicate, (std::vector<std::int64_t>{0, 0, 1, 1, 2, 2}));
  EXPECT_EQ(rounds.step_time_s, (std::vector<double>{1.0, 4.0, 2.0, 8.0, 4.0, 16.0}));
  EXPECT_EQ(rounds.probe_s.size(), 6u);
  EXPECT_EQ(fp32.step_times_s.size(), 12u);
  // Replicate means 2, 4, 8 (round_stats_test: the same estimate).
  const auto expected = ampbench::reports::summarize_rounds({2.0, 4.0, 8.0});
  EXPECT_NEAR(rounds.step_time.value, expected.value, 1e-12);
  EXPECT_NEAR(rounds.step_time.ci_low, expected.ci_low, 1e-12);
  EXPECT_EQ(rounds.step_time.rounds, 6);
  // Figures from the joined steps; the rest from replicate 0; memory the largest.
  EXPECT_EQ(fp32.throughput.step_time_s.count, 12);
  EXPECT_DOUBLE_EQ(fp32.throughput.samples_per_s, 4.0 / fp32.throughput.step_time_s.median);
  EXPECT_EQ(fp32.losses, (std::vector<double>{1.0}));
  EXPECT_EQ(fp32.memory.peak_tensor_bytes, 1002);
  EXPECT_EQ(ampbench::reports::describe(fp32.throughput.stop_reasons), "time cap in 2 of 3 workers, step cap in 1");
}

TEST(JoinReplicates, AModeThatFailsInAnyReplicateFailsWithThatReplicatesError) {
  auto broken = worker_cell("bf16", 1, {1.0});
  broken.status = CellStatus::kFailed;
  broken.error = "boom";
  const auto joined = join_replicates(
      {{worker_cell("fp32", 0, {1.0}), worker_cell("bf16", 0, {1.0})}, {worker_cell("fp32", 1, {1.0}), broken}});
  EXPECT_EQ(joined[0].status, CellStatus::kOk);
  EXPECT_EQ(joined[1].status, CellStatus::kFailed);
  EXPECT_EQ(joined[1].error, "replicate 2: boom");
}

// A worker that crashed reran its modes alone: those rounds were not interleaved with the others.
TEST(JoinReplicates, OnlyModesInterleavedInEveryReplicateStayInterleaved) {
  auto alone = worker_cell("bf16", 1, {1.0});
  alone.rounds->interleaved_modes = {"bf16"};
  const auto joined = join_replicates({{worker_cell("bf16", 0, {1.0})}, {alone}});
  EXPECT_EQ(joined[0].rounds->interleaved_modes, (std::vector<std::string>{"bf16"}));
}

// A real run, in this process: two replicates share the steps; every cell's rounds say which
// replicate ran them, and the speedup is paired within each.
TEST(RunWithReplicates, TheStepsAreSharedOutAndTheRoundsTagged) {
  ampbench::reports::RunConfig config;
  config.device = "cpu";
  config.workloads = {"simplenet"};
  config.modes = {"fp32", "bf16"};
  config.preset = "seed";
  config.warmup = 1;
  config.min_steps = 7;
  config.max_steps = 7;
  config.round_steps = 2;
  config.replicates = 2;
  config.isolate = false;
  const auto report = ampbench::harness::run(ampbench::harness::plan_run(config));
  ASSERT_EQ(report.cells.size(), 2u);
  for (const auto& cell : report.cells) {
    ASSERT_EQ(cell.status, CellStatus::kOk) << cell.mode << ": " << cell.error;
    EXPECT_EQ(cell.step_times_s.size(), 7u) << cell.mode;  // 4 + 3
    EXPECT_EQ(cell.rounds->round_replicate, (std::vector<std::int64_t>{0, 0, 1, 1})) << cell.mode;
    // Replicate 0's warm-up step, then 2 rounds of an untimed and 2 timed steps.
    EXPECT_EQ(cell.losses.size(), 7u) << cell.mode;
  }
  ASSERT_TRUE(report.cells[1].speedup_vs_fp32.has_value());
  // The run applies the slow-machine rule; with every round counted (the rule has its own tests
  // in derived_figures_test), the speedup is the ratio paired within each replicate.
  auto every_round = report;
  for (auto& cell : every_round.cells) {
    EXPECT_EQ(cell.rounds->slow_machine_factor, ampbench::reports::kSlowMachineFactor);
    cell.rounds->slow_machine_factor.reset();
  }
  ampbench::reports::relate_to_fp32(every_round);
  const auto& bf16 = every_round.cells[1];
  const auto paired = ampbench::reports::paired_round_ratio(every_round.cells[0].rounds->step_time_s,
                                                            bf16.rounds->step_time_s, bf16.rounds->round_replicate);
  EXPECT_DOUBLE_EQ(bf16.speedup_vs_fp32->value, paired.value);
}

}  // namespace
