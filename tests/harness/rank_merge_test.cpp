// One data-parallel group's cells from its ranks' own (harness/src/distributed/rank_merge.h): per step the
// slowest rank, the mean loss, the largest memory, the group's samples, every figure re-derived
// from the merged steps; a mode that failed on any rank fails naming the rank that failed first on
// its own, and ranks whose GradScalers skipped different steps fail the cell.
#include "distributed/rank_merge.h"

#include <gtest/gtest.h>

#include "ampbench/reports/stats.h"

namespace {

using ampbench::harness::WorkloadTask;
using ampbench::harness::detail::merge_ranks;
using ampbench::harness::detail::RankResult;
using ampbench::reports::CellResult;
using ampbench::reports::CellStatus;

// A rank's fp16 cell: four steps in two rounds, each step `scale` times a base time.
CellResult rank_cell(double scale, std::vector<double> losses, std::vector<std::int64_t> skipped = {}) {
  CellResult cell;
  cell.workload = "simplenet";
  cell.mode = "fp16";
  cell.device = "cpu";
  cell.preset = "default";
  cell.step_times_s = {1e-3 * scale, 2e-3, 3e-3 * scale, 4e-3};
  cell.losses = std::move(losses);
  cell.throughput.samples_per_step = 32;
  cell.throughput.flops_per_step = 1e6;
  cell.memory.peak_tensor_bytes = static_cast<std::int64_t>(1000 * scale);
  cell.scaler = ampbench::reports::ScalerTelemetry{{65536.0, 65536.0, 65536.0, 65536.0}, std::move(skipped)};
  ampbench::reports::Rounds rounds;
  rounds.interleaved_modes = {"fp16"};
  rounds.steps_per_round = 2;
  rounds.step_round = {0, 0, 1, 1};
  rounds.step_time_s = {1.0, 1.0};  // stale: merging derives them again
  rounds.probe_s = {2e-4, 2e-4};
  cell.rounds = rounds;
  cell.data_parallel = ampbench::reports::DataParallel{};
  cell.data_parallel->allreduce_times_s = {1e-4 * scale, 1e-4, 1e-4, 1e-4};
  return cell;
}

WorkloadTask task_of_fp16() {
  WorkloadTask task;
  task.config.device = "cpu";
  task.workload = "simplenet";
  task.modes = {"fp16"};
  return task;
}

RankResult sent(CellResult cell) { return {std::vector<CellResult>{std::move(cell)}, ""}; }

void expect_near(const std::vector<double>& actual, const std::vector<double>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (std::size_t i = 0; i < actual.size(); ++i) EXPECT_DOUBLE_EQ(actual[i], expected[i]) << i;
}

TEST(MergeRanks, EachStepIsTheSlowestRanksAndEveryFigureFollows) {
  const auto cells = merge_ranks(task_of_fp16(), {sent(rank_cell(1.0, {2.0, 1.0})), sent(rank_cell(1.5, {4.0, 3.0}))});
  ASSERT_EQ(cells.size(), 1u);
  const auto& cell = cells.front();
  ASSERT_EQ(cell.status, CellStatus::kOk) << cell.error;
  EXPECT_EQ(cell.ranks, 2);
  expect_near(cell.step_times_s, {1.5e-3, 2e-3, 4.5e-3, 4e-3});
  expect_near(cell.losses, {3.0, 2.0});
  EXPECT_EQ(cell.memory.peak_tensor_bytes, 1500);
  EXPECT_EQ(cell.throughput.samples_per_step, 64);
  EXPECT_DOUBLE_EQ(cell.throughput.step_time_s.median, ampbench::reports::median(cell.step_times_s));
  expect_near(cell.rounds->step_time_s, {1.75e-3, 4.25e-3});  // medians of the merged steps
  EXPECT_DOUBLE_EQ(cell.data_parallel->allreduce_times_s.front(), 1.5e-4);
  EXPECT_EQ(cell.data_parallel->rank_median_step_time_s.size(), 2u);
  EXPECT_TRUE(cell.data_parallel->inf_checks_agreed);
}

TEST(MergeRanks, RanksThatSkippedDifferentStepsFailTheCell) {
  const auto cells =
      merge_ranks(task_of_fp16(), {sent(rank_cell(1.0, {2.0, 1.0}, {1})), sent(rank_cell(1.0, {2.0, 1.0}, {2}))});
  EXPECT_EQ(cells.front().status, CellStatus::kFailed);
  EXPECT_EQ(cells.front().error, "the ranks' GradScalers skipped different steps: their gradients were not the same");
}

TEST(MergeRanks, TheRankThatFailedOnItsOwnIsNamedBeforeTheOnesItStopped) {
  const RankResult stopped{std::nullopt, "stopped: another rank of its group ended without a result"};
  const RankResult crashed{std::nullopt, "the cell's process was killed by signal 11 (SIGSEGV)"};
  const auto cells = merge_ranks(task_of_fp16(), {stopped, crashed});
  EXPECT_EQ(cells.front().status, CellStatus::kFailed);
  EXPECT_NE(cells.front().error.find("rank 1 of 2: the cell's process was killed by signal 11"), std::string::npos)
      << cells.front().error;
  auto shorter = rank_cell(1.0, {2.0, 1.0});
  shorter.step_times_s.pop_back();
  const auto uneven = merge_ranks(task_of_fp16(), {sent(rank_cell(1.0, {2.0, 1.0})), sent(shorter)});
  EXPECT_EQ(uneven.front().status, CellStatus::kFailed);
  EXPECT_NE(uneven.front().error.find("the ranks ran different numbers of steps"), std::string::npos);
}

}  // namespace
