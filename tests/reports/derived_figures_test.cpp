// The figures a report derives from its samples, on their own: the per-round medians and the
// estimate over rounds, and each AMP cell related to its FP32 cell by the rules derived_figures.h
// states (paired rounds when interleaved, else each side's own, else medians).
#include "ampbench/reports/derived_figures.h"

#include <gtest/gtest.h>

#include "ampbench/reports/stats.h"
#include "sample_report.h"

namespace {

using namespace ampbench::reports;
using ampbench::testing::make_data_parallel_report;
using ampbench::testing::make_sample_report;
using ampbench::testing::sample_cell;

// Six steps per round over `rounds` rounds, the rounds of one worker each unless `replicates`.
void time_in_rounds(CellResult& cell, const std::vector<std::string>& modes, std::int64_t replicates = 1) {
  Rounds rounds;
  rounds.interleaved_modes = modes;
  rounds.steps_per_round = 6;
  const auto count = cell.step_times_s.size() / 6;
  for (std::size_t step = 0; step < cell.step_times_s.size(); ++step)
    rounds.step_round.push_back(static_cast<std::int64_t>(step / 6));
  rounds.step_time_s.assign(count, 0.0);
  for (std::size_t round = 0; round < count; ++round)
    rounds.round_replicate.push_back(static_cast<std::int64_t>(round) * replicates / static_cast<std::int64_t>(count));
  cell.rounds = rounds;
}

TEST(DerivedFigures, EachRoundIsTheMedianOfItsStepsAndTheEstimateIsOverWorkers) {
  CellResult cell = sample_cell("simple_net", "fp32", 1e-3);
  for (std::size_t step = 24; step < 30; ++step) cell.step_times_s[step] *= 2.0;  // the last round
  time_in_rounds(cell, {"fp32"}, 5);
  derive_step_figures(cell);
  const auto& rounds = *cell.rounds;
  ASSERT_EQ(rounds.step_time_s.size(), 5u);
  for (std::size_t round = 0; round < 5; ++round) {
    const std::vector<double> steps(cell.step_times_s.begin() + static_cast<std::ptrdiff_t>(6 * round),
                                    cell.step_times_s.begin() + static_cast<std::ptrdiff_t>(6 * round + 6));
    EXPECT_DOUBLE_EQ(rounds.step_time_s[round], median(steps)) << round;
  }
  const auto expected = summarize_rounds(rounds.step_time_s, rounds.round_replicate);
  EXPECT_DOUBLE_EQ(rounds.step_time.value, expected.value);
  EXPECT_DOUBLE_EQ(rounds.step_time.ci_high, expected.ci_high);
  EXPECT_DOUBLE_EQ(cell.throughput.step_time_s.median, median(cell.step_times_s));
  EXPECT_DOUBLE_EQ(cell.throughput.samples_per_s, 64.0 / median(cell.step_times_s));
}

TEST(DerivedFigures, CellsWithoutRoundsRelateByTheirMedians) {
  Report report = make_sample_report();
  for (auto& cell : report.cells) {
    cell.speedup_vs_fp32.reset();
    cell.memory_ratio_vs_fp32.reset();
    cell.divergence.reset();
  }
  relate_to_fp32(report);
  const auto& fp32 = report.cells[0];
  const auto& fp16 = report.cells[1];
  EXPECT_FALSE(fp32.speedup_vs_fp32.has_value());
  ASSERT_TRUE(fp16.speedup_vs_fp32.has_value());
  EXPECT_DOUBLE_EQ(fp16.speedup_vs_fp32->value, median_ratio(fp32.step_times_s, fp16.step_times_s).value);
  EXPECT_DOUBLE_EQ(fp16.memory_ratio_vs_fp32->value, 40.0 / 48.0);
  ASSERT_TRUE(fp16.divergence.has_value());
  EXPECT_EQ(fp16.divergence->verdict, compute_divergence(*fp32.numerics, *fp16.numerics).verdict);
  EXPECT_FALSE(report.cells[4].speedup_vs_fp32.has_value());  // SimpleCNN fp16 failed
  EXPECT_EQ(reference_cell(report, fp16), &report.cells[0]);
  EXPECT_EQ(reference_cell(report, report.cells[5]), &report.cells[3]);  // SimpleCNN bf16
  EXPECT_EQ(reference_cell(report, fp32), nullptr);
}

TEST(DerivedFigures, InterleavedCellsRelateByTheirPairedRounds) {
  Report report;
  report.cells = {sample_cell("simple_net", "fp32", 1e-3), sample_cell("simple_net", "bf16", 0.5e-3)};
  for (auto& cell : report.cells) {
    time_in_rounds(cell, {"fp32", "bf16"});
    derive_step_figures(cell);
  }
  relate_to_fp32(report);
  const auto& fp32 = *report.cells[0].rounds;
  const auto& bf16 = report.cells[1];
  const auto paired = paired_round_ratio(fp32.step_time_s, bf16.rounds->step_time_s, bf16.rounds->round_replicate);
  ASSERT_TRUE(bf16.speedup_vs_fp32.has_value());
  EXPECT_DOUBLE_EQ(bf16.speedup_vs_fp32->value, paired.value);
  EXPECT_DOUBLE_EQ(bf16.speedup_vs_fp32->ci_low, paired.ci_low);
  // Not interleaved with FP32 (other rounds): each side's own estimate, compared.
  report.cells[1].rounds->interleaved_modes = {"bf16"};
  relate_to_fp32(report);
  const auto independent = compare_rounds(report.cells[1].rounds->step_time_s, fp32.step_time_s,
                                          report.cells[1].rounds->round_replicate, fp32.round_replicate);
  EXPECT_DOUBLE_EQ(report.cells[1].speedup_vs_fp32->value, independent.ratio.value);
}

TEST(DerivedFigures, ADataParallelCellIsRelatedToItsOneRankCell) {
  Report report = make_data_parallel_report();
  relate_to_fp32(report);
  const auto& one_rank = report.cells[0];  // simple_net fp32 on 1 rank
  const auto& two_ranks = report.cells[3];
  ASSERT_TRUE(two_ranks.data_parallel->scaling_efficiency.has_value());
  EXPECT_DOUBLE_EQ(two_ranks.data_parallel->scaling_efficiency->value,
                   median_ratio(one_rank.step_times_s, two_ranks.step_times_s).value);
  // bf16 failed on one rank: its two-rank cell has nothing to scale against.
  EXPECT_FALSE(report.cells[5].data_parallel->scaling_efficiency.has_value());
  // An AMP cell is measured against the FP32 cell of its own ranks.
  EXPECT_DOUBLE_EQ(report.cells[4].speedup_vs_fp32->value,
                   median_ratio(two_ranks.step_times_s, report.cells[4].step_times_s).value);
}

}  // namespace
