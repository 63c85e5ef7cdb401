// The figures a report derives from its samples, on their own: the per-round medians and the
// estimate over rounds, and each AMP cell related to its FP32 cell by the rules derived_figures.h
// states (paired rounds when interleaved, else each side's own, else medians).
#include "ampbench/reports/derived_figures.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>

#include "ampbench/reports/html.h"
#include "ampbench/reports/markdown.h"
#include "ampbench/reports/stats.h"
#include "ampbench/reports/table.h"
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

// Interleaved simple_net fp32 and bf16 over ten rounds of two workers, the probe timed in each.
// The rounds in `slow` ran on a slower machine: the probe took 1.5x its usual time, and bf16's
// steps 1.4x theirs (the slower state changes the speedup, as measured on the shared VM).
Report two_state_report(const std::vector<std::size_t>& slow, std::optional<double> factor) {
  Report report;
  report.cells = {sample_cell("simple_net", "fp32", 1e-3), sample_cell("simple_net", "bf16", 0.5e-3)};
  for (auto& cell : report.cells) {
    const auto once = cell.step_times_s;
    cell.step_times_s.insert(cell.step_times_s.end(), once.begin(), once.end());
    for (const auto round : slow) {
      for (std::size_t step = 6 * round; step < 6 * round + 6; ++step) {
        cell.step_times_s[step] *= cell.mode == "bf16" ? 1.4 : 1.0;
      }
    }
    time_in_rounds(cell, {"fp32", "bf16"}, 2);
    cell.rounds->probe_s.assign(10, 1e-4);
    for (std::size_t round = 0; round < 10; ++round) cell.rounds->probe_s[round] += 1e-7 * round;  // jitter
    for (const auto round : slow) cell.rounds->probe_s[round] *= 1.5;
    cell.rounds->probe = "float32 MLP training step";
    cell.rounds->slow_machine_factor = factor;
    derive_step_figures(cell);
  }
  relate_to_fp32(report);
  return report;
}

// The paired ratio over the rounds not in `left_out`.
Ratio paired_without(const Report& report, const std::vector<std::size_t>& left_out) {
  std::vector<double> fp32;
  std::vector<double> bf16;
  std::vector<std::int64_t> replicate;
  for (std::size_t round = 0; round < 10; ++round) {
    if (std::find(left_out.begin(), left_out.end(), round) != left_out.end()) continue;
    fp32.push_back(report.cells[0].rounds->step_time_s[round]);
    bf16.push_back(report.cells[1].rounds->step_time_s[round]);
    replicate.push_back(report.cells[1].rounds->round_replicate[round]);
  }
  return paired_round_ratio(fp32, bf16, replicate);
}

TEST(DerivedFigures, ASpeedupLeavesOutTheRoundsTheProbeFoundSlow) {
  const auto report = two_state_report({3, 7}, kSlowMachineFactor);
  const auto& bf16 = report.cells[1];
  EXPECT_EQ(bf16.rounds->slow_machine_rounds, 2);
  EXPECT_EQ(report.cells[0].rounds->slow_machine_rounds, 2);
  const auto expected = paired_without(report, {3, 7});
  ASSERT_TRUE(bf16.speedup_vs_fp32.has_value());
  EXPECT_DOUBLE_EQ(bf16.speedup_vs_fp32->value, expected.value);
  EXPECT_DOUBLE_EQ(bf16.speedup_vs_fp32->ci_high, expected.ci_high);
  EXPECT_NEAR(bf16.speedup_vs_fp32->value, 2.0, 0.05);  // the usual state's speedup
  EXPECT_LT(paired_without(report, {}).value, 1.95);    // which the slow rounds would pull down
  // A round within the factor of the usual time stays.
  EXPECT_EQ(two_state_report({}, kSlowMachineFactor).cells[1].rounds->slow_machine_rounds, 0);
}

// Every renderer names the probe and the rule, and which cells' speedups left rounds out.
TEST(DerivedFigures, TheReportSaysWhichRoundsASpeedupLeftOut) {
  const std::string note =
      "Machine probe: float32 MLP training step, timed in every round. Speedups leave out the rounds in which it took "
      "over 1.30x the run's usual time (the machine in a slower state): ";
  const auto slow = two_state_report({3, 7}, kSlowMachineFactor);
  for (const auto& page : {render_table(slow), render_markdown(slow), render_html(slow)}) {
    EXPECT_NE(page.find(note + "simple_net/bf16/cpu 2 of 10."), std::string::npos) << page;
  }
  EXPECT_NE(render_table(two_state_report({}, kSlowMachineFactor)).find(note + "none did."), std::string::npos);
  const auto all_slow = two_state_report({0, 1, 2, 3, 4, 5, 6, 8, 9}, kSlowMachineFactor);
  EXPECT_NE(render_table(all_slow).find("simple_net/bf16/cpu 9 of 10 (all kept: the speedup describes the slower "
                                        "state)."),
            std::string::npos);
  EXPECT_EQ(render_table(two_state_report({3}, std::nullopt)).find("Machine probe:"), std::string::npos);
}

TEST(DerivedFigures, ReportsFromBeforeTheSlowMachineRuleCountEveryRound) {
  const auto report = two_state_report({3, 7}, std::nullopt);
  EXPECT_EQ(report.cells[1].rounds->slow_machine_rounds, 0);
  EXPECT_DOUBLE_EQ(report.cells[1].speedup_vs_fp32->value, paired_without(report, {}).value);
}

// Nine slow rounds of ten: the one usual round is too few to estimate from, so every round counts
// and the count says the figure describes the slower state.
TEST(DerivedFigures, WhenFewerThanTwoRoundsAreUsualEveryRoundCounts) {
  const auto report = two_state_report({0, 1, 2, 3, 4, 5, 6, 8, 9}, kSlowMachineFactor);
  EXPECT_EQ(report.cells[1].rounds->slow_machine_rounds, 9);
  EXPECT_DOUBLE_EQ(report.cells[1].speedup_vs_fp32->value, paired_without(report, {}).value);
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
