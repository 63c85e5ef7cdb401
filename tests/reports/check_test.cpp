// `check` on synthetic reports: real regressions fail, noise and small changes pass, and a large
// change in noisy samples is left to the test.
#include "ampbench/reports/check.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <variant>

#include <nlohmann/json.hpp>

#include "ampbench/reports/google_benchmark.h"
#include "ampbench/reports/report_json.h"
#include "sample_report.h"

namespace {

using namespace ampbench::reports;

// Deterministic normal noise (a 64-bit LCG and Box-Muller), so the samples are the same everywhere.
std::vector<double> noisy_samples(double median_s, double relative_sd, int count, std::uint64_t seed) {
  std::uint64_t state = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  const auto uniform = [&state] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (static_cast<double>(state >> 11) + 0.5) / 9007199254740992.0;
  };
  std::vector<double> samples;
  for (int i = 0; i < count; ++i) {
    const double z = std::sqrt(-2.0 * std::log(uniform())) * std::cos(6.283185307179586 * uniform());
    samples.push_back(median_s * std::max(0.05, 1.0 + relative_sd * z));
  }
  return samples;
}

Report one_cell_report(std::vector<double> step_times, std::int64_t peak_bytes = 1 << 20) {
  Report report;
  report.environment.cpu_model = "Test CPU";
  report.cells.push_back(ampbench::testing::sample_cell("simple_net", "fp16", 1e-3));
  report.cells.back().step_times_s = std::move(step_times);
  report.cells.back().memory.peak_tensor_bytes = peak_bytes;
  return report;
}

CheckResult check(const Report& base, const Report& current, CheckOptions options = {}) {
  return check_reports(compare_reports(base, current), options);
}

TEST(Check, TenPercentSlowerWithLowNoiseFails) {
  const auto result =
      check(one_cell_report(noisy_samples(1e-3, 0.01, 50, 1)), one_cell_report(noisy_samples(1.1e-3, 0.01, 50, 2)));
  EXPECT_FALSE(result.passed);
  EXPECT_EQ(result.regressed, 1);
  ASSERT_EQ(result.cells.size(), 1u);
  EXPECT_EQ(result.cells[0].verdict, Verdict::kRegressed);
  const std::string text = render_check_text(result, {});
  EXPECT_NE(text.find("REGRESSED  simple_net/fp16/cpu/default\n    step time +"), std::string::npos) << text;
  EXPECT_NE(text.find("beyond the 5.0% threshold"), std::string::npos) << text;
  EXPECT_NE(text.find("FAIL: 1 of 1 cells regressed"), std::string::npos) << text;
}

TEST(Check, OnePercentSlowerPassesEvenWhenSignificant) {
  const Report base = one_cell_report(noisy_samples(1e-3, 0.002, 200, 3));
  const Report current = one_cell_report(noisy_samples(1.01e-3, 0.002, 200, 4));
  const auto comparison = compare_reports(base, current);
  EXPECT_LT(comparison.cells[0].u_test.p_value, 0.01);  // real, but within the threshold
  const auto result = check_reports(comparison, {});
  EXPECT_TRUE(result.passed);
  EXPECT_EQ(result.cells[0].verdict, Verdict::kPass);
}

TEST(Check, PureNoisePasses) {
  for (std::uint64_t seed = 10; seed < 20; seed += 2) {
    const auto result = check(one_cell_report(noisy_samples(1e-3, 0.05, 40, seed)),
                              one_cell_report(noisy_samples(1e-3, 0.05, 40, seed + 1)));
    EXPECT_TRUE(result.passed) << "seed " << seed << "\n" << render_check_text(result, {});
  }
}

TEST(Check, LargeButNoisyChangeIsDecidedByTheTest) {
  // +20% in the medians, 40% noise: with 8 samples a side the U test cannot tell, so it passes
  // and says why; with 400 a side it can, and the same shift fails.
  const auto few = compare_reports(one_cell_report(noisy_samples(1e-3, 0.4, 8, 30)),
                                   one_cell_report(noisy_samples(1.2e-3, 0.4, 8, 31)));
  ASSERT_TRUE(few.cells[0].comparable);
  EXPECT_GT(few.cells[0].u_test.p_value, 0.01);
  const auto few_result = check_reports(few, {});
  EXPECT_TRUE(few_result.passed);
  EXPECT_NE(render_check_text(few_result, {}).find("not significant"), std::string::npos)
      << render_check_text(few_result, {});

  const auto many = compare_reports(one_cell_report(noisy_samples(1e-3, 0.4, 400, 32)),
                                    one_cell_report(noisy_samples(1.2e-3, 0.4, 400, 33)));
  EXPECT_LT(many.cells[0].u_test.p_value, 0.01);
  EXPECT_FALSE(check_reports(many, {}).passed);
}

TEST(Check, ImprovementsNeverFail) {
  const auto result =
      check(one_cell_report(noisy_samples(1e-3, 0.01, 50, 40)), one_cell_report(noisy_samples(0.7e-3, 0.01, 50, 41)));
  EXPECT_TRUE(result.passed);
  EXPECT_EQ(result.cells[0].verdict, Verdict::kImproved);
}

TEST(Check, TooFewSamplesAreCalledOut) {
  const auto result = check(one_cell_report({1e-3, 1.1e-3, 0.9e-3}), one_cell_report({2e-3, 2.1e-3, 1.9e-3}));
  EXPECT_TRUE(result.passed);
  EXPECT_NE(render_check_text(result, {}).find("too few samples (3 vs 3)"), std::string::npos);
}

TEST(Check, MemoryGrowthBeyondThresholdFails) {
  const auto samples = noisy_samples(1e-3, 0.01, 30, 50);
  EXPECT_FALSE(check(one_cell_report(samples, 100 << 20), one_cell_report(samples, 110 << 20)).passed);
  EXPECT_TRUE(check(one_cell_report(samples, 100 << 20), one_cell_report(samples, 103 << 20)).passed);
  CheckOptions loose;
  loose.max_memory_growth = 0.2;
  EXPECT_TRUE(check(one_cell_report(samples, 100 << 20), one_cell_report(samples, 110 << 20), loose).passed);
}

// reference, steps, final evaluations, final relative difference, final floor, max, ratio, multiple.
Divergence divergence(double final_relative_difference, double final_floor, const char* verdict_name) {
  const auto verdict = divergence_verdict_named(verdict_name).value();
  return Divergence{"fp32",
                    48,
                    4,
                    final_relative_difference,
                    final_floor,
                    final_relative_difference,
                    final_relative_difference / final_floor,
                    kFloorMultiple,
                    verdict};
}

// check on one cell whose step times did not change, only its divergence.
CheckResult check_divergence(const std::optional<Divergence>& base, const Divergence& current,
                             CheckOptions options = {}) {
  const auto samples = noisy_samples(1e-3, 0.01, 30, 60);
  Report base_report = one_cell_report(samples);
  Report current_report = one_cell_report(samples);
  base_report.cells[0].divergence = base;
  current_report.cells[0].divergence = current;
  return check(base_report, current_report, options);
}

TEST(Check, DivergenceThatGotWorseFails) {
  const auto within = divergence(0.005, 0.01, "within the noise floor");
  const auto above = divergence(0.015, 0.01, "above the floor");
  const auto diverged = divergence(0.15, 0.01, "diverged");
  EXPECT_FALSE(check_divergence(within, diverged).passed);
  EXPECT_FALSE(check_divergence(above, diverged).passed);
  EXPECT_FALSE(check_divergence(std::nullopt, diverged).passed);
  // "above the floor" is not a failure: not clearly beyond what an irrelevant change does.
  EXPECT_TRUE(check_divergence(within, divergence(0.025, 0.01, "above the floor")).passed);
  // A non-finite loss regresses from any other verdict.
  EXPECT_FALSE(check_divergence(above, divergence(0.0, 0.01, "non-finite loss")).passed);
}

TEST(Check, DivergenceThatWasAlreadyThereDoesNotFail) {
  EXPECT_TRUE(check_divergence(divergence(0.2, 0.01, "diverged"), divergence(0.3, 0.01, "diverged")).passed);
  const auto non_finite = divergence(0.0, 0.01, "non-finite loss");
  EXPECT_TRUE(check_divergence(non_finite, non_finite).passed);
}

TEST(Check, MaxDivergenceIsAnAbsoluteToleranceAboveTheFloor) {
  const auto within = divergence(0.005, 0.01, "within the noise floor");
  const auto diverged = divergence(0.15, 0.01, "diverged");
  CheckOptions options;
  options.max_divergence = 0.2;  // 15% is within an explicit 20% tolerance
  EXPECT_TRUE(check_divergence(within, diverged, options).passed);
  options.max_divergence = 0.1;
  EXPECT_FALSE(check_divergence(within, diverged, options).passed);
  // Beyond the tolerance but within the floor: what an irrelevant change does too, not a failure.
  EXPECT_TRUE(check_divergence(within, divergence(0.15, 0.2, "within the noise floor"), options).passed);
  // A non-finite loss fails whatever the tolerance.
  options.max_divergence = 10.0;
  EXPECT_FALSE(check_divergence(within, divergence(0.0, 0.01, "non-finite loss"), options).passed);
}

TEST(Check, DivergenceFailureNamesTheFigures) {
  const auto result = check_divergence(std::nullopt, divergence(0.15, 0.01, "diverged"));
  ASSERT_FALSE(result.passed);
  ASSERT_EQ(result.cells[0].reasons.size(), 1u);
  const auto* reason = std::get_if<DivergenceReason>(&result.cells[0].reasons[0]);
  ASSERT_NE(reason, nullptr);
  EXPECT_EQ(reason->verdict, DivergenceVerdict::kDiverged);
  EXPECT_FALSE(reason->baseline.has_value());
  EXPECT_DOUBLE_EQ(reason->relative_difference, 0.15);
  EXPECT_FALSE(reason->tolerance.has_value());
  EXPECT_EQ(describe_reason(result.cells[0].reasons[0]),
            "eval loss 15.0% from fp32, noise floor 1.00% (15x): diverged (baseline: none)");
}

TEST(Check, MissingCellsFailOnlyWhenStrict) {
  Report base = one_cell_report(noisy_samples(1e-3, 0.01, 30, 70));
  const Report current = one_cell_report(noisy_samples(1e-3, 0.01, 30, 71));
  base.cells.push_back(ampbench::testing::sample_cell("simple_cnn", "bf16", 1e-2));
  const auto result = check(base, current);
  EXPECT_TRUE(result.passed);
  EXPECT_EQ(result.missing, 1);
  EXPECT_NE(render_check_text(result, {}).find("missing  simple_cnn/bf16/cpu/default\n    only in the baseline"),
            std::string::npos);
  CheckOptions strict;
  strict.strict = true;
  EXPECT_FALSE(check(base, current, strict).passed);
}

TEST(Check, ACellThatFailsNowRegresses) {
  const Report base = one_cell_report(noisy_samples(1e-3, 0.01, 30, 80));
  Report current = base;
  current.cells[0].status = CellStatus::kFailed;
  current.cells[0].error = "out of memory";
  const auto result = check(base, current);
  EXPECT_FALSE(result.passed);
  const auto* reason = std::get_if<NotComparableReason>(&result.cells[0].reasons[0]);
  ASSERT_NE(reason, nullptr);
  EXPECT_EQ(reason->note, "failed in current: out of memory");
}

TEST(EnvironmentMismatch, OtherHardwarePrecisionSettingsOrUntimedStepsAreNamed) {
  const Report base = one_cell_report({1e-3});
  EXPECT_TRUE(environment_mismatches(base, base).empty());
  Report other = base;
  other.environment.cpu_model = "Other CPU";
  other.cells[0].settings.tf32_matmul = true;
  const auto mismatches = environment_mismatches(base, other);
  ASSERT_EQ(mismatches.size(), 2u);
  EXPECT_EQ(mismatches[0], "CPU \"Test CPU\" vs \"Other CPU\"");
  EXPECT_EQ(mismatches[1], "simple_net/fp16/cpu/default precision settings: tf32_matmul false vs true");
  Report other_allocator = base;
  other_allocator.config.allocator = ampbench::reports::AllocatorPolicy::kTcmalloc;
  EXPECT_EQ(environment_mismatches(base, other_allocator),
            std::vector<std::string>{"allocator glibc-fixed vs tcmalloc"});
  // A cell timed with another number of untimed steps after each switch (a GPU run from before two).
  Report sample = ampbench::testing::make_sample_report();
  sample.cells[1].rounds.emplace();  // one untimed step per block, as every report before the field
  Report timed_otherwise = sample;
  timed_otherwise.cells[1].rounds->untimed_steps_per_block = 2;
  EXPECT_EQ(environment_mismatches(sample, timed_otherwise),
            std::vector<std::string>{"simple_net/fp16/cpu/default untimed steps per block 1 vs 2"});
}

TEST(Compare, CellByCellWithIntervalsAndMissingCells) {
  const Report base = ampbench::testing::make_sample_report();
  Report current = base;
  current.cells.pop_back();
  for (double& t : current.cells[0].step_times_s) t *= 1.5;
  const auto comparison = compare_reports(base, current);
  ASSERT_EQ(comparison.cells.size(), 5u);
  EXPECT_NEAR(comparison.cells[0].time_ratio.value, 1.5, 1e-12);
  EXPECT_LT(comparison.cells[0].u_test.p_value, 1e-6);
  EXPECT_FALSE(comparison.cells[4].comparable);  // failed in both
  ASSERT_EQ(comparison.only_in_base.size(), 1u);
}

// Cells are matched by their key, ranks included: a 2-rank cell meets only a 2-rank cell, and its
// one-rank twin is another cell, named without ranks as in reports from before them.
TEST(Compare, ACellMeetsOnlyTheCellOfItsRanks) {
  const Report base = ampbench::testing::make_data_parallel_report();
  Report current = base;
  for (double& t : current.cells[3].step_times_s) t *= 1.5;  // simple_net/fp32 on 2 ranks
  current.cells.erase(current.cells.begin());                // simple_net/fp32 on 1 rank
  const auto result = check_reports(compare_reports(base, current), CheckOptions{});
  const auto verdict_of = [&result](const std::string& label) {
    for (const auto& cell : result.cells) {
      if (cell.key.label() == label) return std::optional<Verdict>{cell.verdict};
    }
    return std::optional<Verdict>{};
  };
  EXPECT_EQ(verdict_of("simple_net/fp32/cpu/default/ranks=2"), Verdict::kRegressed);
  EXPECT_EQ(verdict_of("simple_net/fp32/cpu/default"), Verdict::kMissing);
  EXPECT_EQ(verdict_of("simple_net/fp16/cpu/default/ranks=2"), Verdict::kPass);
  EXPECT_EQ(verdict_of("simple_net/fp16/cpu/default"), Verdict::kPass);
  EXPECT_EQ(result.regressed, 1);
  // Against a report of one rank, the 2-rank cells have nothing to meet.
  const auto one_rank = compare_reports(ampbench::testing::make_sample_report(), base);
  EXPECT_EQ(one_rank.only_in_current.size(), 3u);
  for (const auto& key : one_rank.only_in_current) EXPECT_EQ(key.ranks, 2) << key.label();
}

TEST(CellKey, NamesRanksOnlyAboveOne) {
  CellKey key{"simple_net", "fp16", "cpu", "default"};
  EXPECT_EQ(key.label(), "simple_net/fp16/cpu/default");
  key.ranks = 4;
  EXPECT_EQ(key.label(), "simple_net/fp16/cpu/default/ranks=4");
  EXPECT_LT(CellKey({"simple_net", "fp16", "cpu", "default", 1}), key);
}

// A cell timed in interleaved rounds (one step per round here): round r took step[r], and the
// machine probe in the same round took probe[r].
// With `replicate`, the worker process of each round.
Report rounds_report(const std::vector<double>& step, const std::vector<double>& probe,
                     const std::vector<std::int64_t>& replicate = {}) {
  Report report = one_cell_report(step);
  Rounds rounds;
  rounds.interleaved_modes = {"fp16"};
  rounds.steps_per_round = 1;
  for (std::size_t r = 0; r < step.size(); ++r) rounds.step_round.push_back(static_cast<std::int64_t>(r));
  rounds.step_time_s = step;
  rounds.probe_s = probe;
  rounds.round_replicate = replicate;
  rounds.step_time = summarize_rounds(step, replicate);
  report.cells.back().rounds = rounds;
  return report;
}

std::vector<double> scaled(std::vector<double> values, double factor) {
  for (auto& value : values) value *= factor;
  return values;
}

// The same code on a machine that is 25% slower today as a whole: the raw times differ clearly,
// the probe says by how much, and per probe nothing changed.
TEST(CheckByRounds, AUniformlySlowerMachineIsNotARegression) {
  const auto noise = noisy_samples(1.0, 0.01, 12, 50);
  std::vector<double> step;
  std::vector<double> probe;
  for (std::size_t r = 0; r < noise.size(); ++r) {
    step.push_back(1e-3 * noise[r]);
    probe.push_back(2e-4 * noise[r] * noisy_samples(1.0, 0.003, 12, 51)[r]);
  }
  const auto result = check(rounds_report(step, probe), rounds_report(scaled(step, 1.25), scaled(probe, 1.25)));
  EXPECT_TRUE(result.passed) << render_check_text(result, {});
  EXPECT_EQ(result.cells[0].verdict, Verdict::kPass) << render_check_text(result, {});
  EXPECT_EQ(result.compared_by_steps, 0);
}

// A run spent wholly in the host's slower state (its probe 1.4x the baseline's; a run on this
// project's VM did that, 1.33-1.50x). Steps follow the probe by cell, less or more than in full:
// a transformer step 1.9x (slope ~1.9) reads +36% per probe and +90% raw, a false regression by
// both views; a SimpleCNN step 1.18x (slope ~0.5) with a real +15% reads -3% per probe, which
// would pass as "the machine's change". Neither can be judged: inconclusive, and the reason says why.
TEST(CheckByRounds, ARunInAnotherStateOfTheHostIsInconclusiveEitherWay) {
  const auto step = noisy_samples(1e-3, 0.01, 12, 100);
  const auto probe = noisy_samples(2e-4, 0.01, 12, 101);
  const auto slower_host = scaled(probe, 1.4);
  for (const double step_factor : {1.9, 1.18 * 1.15}) {
    const auto result = check(rounds_report(step, probe), rounds_report(scaled(step, step_factor), slower_host));
    const auto text = render_check_text(result, {});
    EXPECT_TRUE(result.passed) << text;
    EXPECT_EQ(result.cells[0].verdict, Verdict::kInconclusive) << text;
    EXPECT_NE(text.find("the machine probe took 1.40x its baseline time, beyond the 1.30x that marks the host's other "
                        "state"),
              std::string::npos)
        << text;
  }
  // The other way round (the baseline ran in the slower state) is the same; a probe move under the
  // factor is judged as before (AUniformlySlowerMachineIsNotARegression: 1.25x).
  const auto reversed = check(rounds_report(scaled(step, 1.9), slower_host), rounds_report(step, probe));
  EXPECT_EQ(reversed.cells[0].verdict, Verdict::kInconclusive) << render_check_text(reversed, {});
  const auto judged = check(rounds_report(step, probe), rounds_report(scaled(step, 1.9 * 1.25), scaled(probe, 1.25)));
  EXPECT_EQ(judged.cells[0].verdict, Verdict::kRegressed) << render_check_text(judged, {});
}

TEST(CheckByRounds, FifteenPercentSlowerPerProbeFails) {
  const auto step = noisy_samples(1e-3, 0.02, 10, 60);
  const auto probe = noisy_samples(2e-4, 0.02, 10, 61);
  const auto result = check(rounds_report(step, probe), rounds_report(scaled(noisy_samples(1e-3, 0.02, 10, 62), 1.15),
                                                                      noisy_samples(2e-4, 0.02, 10, 63)));
  EXPECT_FALSE(result.passed);
  ASSERT_EQ(result.cells.size(), 1u);
  EXPECT_EQ(result.cells[0].verdict, Verdict::kRegressed);
  const std::string text = render_check_text(result, {});
  EXPECT_NE(text.find("step time per machine probe +"), std::string::npos) << text;
  EXPECT_NE(text.find("machine probe"), std::string::npos) << text;
}

// Per probe +12% and clearly resolved, but the raw step time moved +3% only (the probe got 8%
// faster): the code and the machine cannot be told apart, so it is inconclusive, not a failure.
// The same +12% in the raw time too is a regression.
TEST(CheckByRounds, APerProbeChangeTheRawTimeDoesNotConfirmIsInconclusive) {
  const auto step = noisy_samples(1e-3, 0.005, 10, 90);
  const auto probe = noisy_samples(2e-4, 0.005, 10, 91);
  const auto unconfirmed = check(rounds_report(step, probe), rounds_report(scaled(step, 1.03), scaled(probe, 0.92)));
  EXPECT_TRUE(unconfirmed.passed);
  EXPECT_EQ(unconfirmed.cells[0].verdict, Verdict::kInconclusive) << render_check_text(unconfirmed, {});
  EXPECT_NE(render_check_text(unconfirmed, {}).find("the raw step time changed less"), std::string::npos)
      << render_check_text(unconfirmed, {});
  const auto confirmed = check(rounds_report(step, probe), rounds_report(scaled(step, 1.12), probe));
  EXPECT_EQ(confirmed.cells[0].verdict, Verdict::kRegressed) << render_check_text(confirmed, {});
}

// +12% in the means but 30% round-to-round noise over 4 rounds: the runs cannot resolve it, so it
// is listed as inconclusive and passes.
TEST(CheckByRounds, AChangeTheNoiseCannotResolveIsInconclusiveAndPasses) {
  const std::vector<double> probe(4, 2e-4);
  const std::vector<double> base{1.0e-3, 1.5e-3, 0.7e-3, 1.1e-3};
  const std::vector<double> current{1.6e-3, 0.8e-3, 1.2e-3, 1.05e-3};
  const auto result = check(rounds_report(base, probe), rounds_report(current, probe));
  EXPECT_TRUE(result.passed);
  EXPECT_EQ(result.inconclusive, 1);
  EXPECT_EQ(result.cells[0].verdict, Verdict::kInconclusive);
  const std::string text = render_check_text(result, {});
  EXPECT_NE(text.find("cannot resolve it"), std::string::npos) << text;
  EXPECT_NE(text.find("1 inconclusive"), std::string::npos) << text;
}

// Four worker processes per run, three quiet rounds each, but each process at its own level
// (+-10%): a +12% shift, which taking the 12 rounds as independent draws calls significant, is
// within what the 4 processes' spread can resolve. By replicates it is inconclusive.
TEST(CheckByRounds, ProcessLevelsThatDifferBetweenRunsMakeAShiftInconclusive) {
  const std::vector<double> levels{1.0, 1.1, 0.9, 1.05};
  const std::vector<double> current_levels{1.05 * 1.12, 0.9 * 1.12, 1.1 * 1.12, 1.0 * 1.12};
  const auto rounds_of = [](const std::vector<double>& process_levels, std::uint64_t seed) {
    std::vector<double> step;
    for (std::size_t p = 0; p < process_levels.size(); ++p) {
      for (const double noise : noisy_samples(1.0, 0.002, 3, seed + p))
        step.push_back(1e-3 * process_levels[p] * noise);
    }
    return step;
  };
  const std::vector<std::int64_t> replicate{0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3};
  const std::vector<double> probe(12, 2e-4);
  const auto base = rounds_of(levels, 70);
  const auto current = rounds_of(current_levels, 80);
  const auto by_replicates = check(rounds_report(base, probe, replicate), rounds_report(current, probe, replicate));
  EXPECT_EQ(by_replicates.cells[0].verdict, Verdict::kInconclusive) << render_check_text(by_replicates, {});
  EXPECT_NE(render_check_text(by_replicates, {}).find("(4 vs 4 worker processes, 12 vs 12 rounds)"), std::string::npos)
      << render_check_text(by_replicates, {});
  const auto by_rounds = check(rounds_report(base, probe), rounds_report(current, probe));
  EXPECT_EQ(by_rounds.cells[0].verdict, Verdict::kRegressed) << render_check_text(by_rounds, {});
}

// Each worker's rounds are contiguous: a replicate index that goes back or skips one is refused.
TEST(CheckByRounds, InconsistentReplicateIndicesAreRefusedOnRead) {
  auto report = rounds_report({1e-3, 1e-3, 1e-3}, {2e-4, 2e-4, 2e-4}, {0, 1, 1});
  report.cells[0].throughput.step_time_s = summarize(report.cells[0].step_times_s);
  auto json = nlohmann::json(report);
  EXPECT_NO_THROW((void)parse_report_or_google_benchmark_text(json.dump(), "r.json"));
  json["cells"][0]["rounds"]["round_replicate"] = {0, 2, 2};
  try {
    (void)parse_report_or_google_benchmark_text(json.dump(), "r.json");
    ADD_FAILURE() << "accepted";
  } catch (const ReportError& error) {
    EXPECT_STREQ(error.what(),
                 "r.json: cells[0].rounds.round_replicate[1]: replicate 2 after 0 (expected the same or the next)");
  }
  json["cells"][0]["rounds"]["round_replicate"] = {0, 0};
  EXPECT_THROW((void)parse_report_or_google_benchmark_text(json.dump(), "r.json"), ReportError);
}

// Per-probe figures divide by the probe; two probes that timed different work cannot be divided
// into each other, so the cell is compared by its steps, and the reason names both probes.
TEST(CheckByRounds, DifferentMachineProbesAreComparedStepByStepAndSaySo) {
  const auto step = noisy_samples(1e-3, 0.01, 12, 70);
  const auto probe = noisy_samples(2e-4, 0.01, 12, 71);
  auto base = rounds_report(step, probe);
  auto current = rounds_report(step, probe);
  base.cells[0].rounds->probe = "probe A";
  current.cells[0].rounds->probe = "probe B";
  const auto result = check(base, current);
  EXPECT_EQ(result.compared_by_steps, 1);
  const auto text = render_check_text(result, {});
  EXPECT_NE(text.find("machine probes differ (baseline: probe A; current: probe B): compared step by step"),
            std::string::npos)
      << text;
  current.cells[0].rounds->probe = "probe A";
  EXPECT_EQ(check(base, current).compared_by_steps, 0);
}

// A report written before the probe was named timed a 256x256 float32 GEMM on a CPU.
TEST(CheckByRounds, AnUnnamedProbeReadsAsTheGemmOfOlderReports) {
  auto report = rounds_report({1e-3, 1e-3, 1e-3}, {2e-4, 2e-4, 2e-4});
  report.cells[0].throughput.step_time_s = summarize(report.cells[0].step_times_s);
  report.cells[0].rounds->probe = "float32 MLP training step";
  auto json = nlohmann::json(report);
  EXPECT_EQ(parse_report_or_google_benchmark_text(json.dump(), "r.json").cells[0].rounds->probe,
            "float32 MLP training step");
  json["cells"][0]["rounds"].erase("probe");
  EXPECT_EQ(parse_report_or_google_benchmark_text(json.dump(), "r.json").cells[0].rounds->probe, kCpuMatmulProbe);
}

TEST(CheckByRounds, ReportsWithoutRoundsFallBackToTheUTestAndSaySo) {
  const auto result =
      check(one_cell_report(noisy_samples(1e-3, 0.01, 50, 1)), one_cell_report(noisy_samples(1e-3, 0.01, 50, 2)));
  EXPECT_EQ(result.compared_by_steps, 1);
  EXPECT_NE(render_check_text(result, {}).find("cannot tell machine drift from a code change"), std::string::npos);
}

// A non-finite gradient norm is trouble only on a step the optimizer took: one the GradScaler
// skipped is what the scaler is for.
TEST(Check, ANonFiniteGradientNormOnAStepTakenFails) {
  const auto base = one_cell_report(noisy_samples(1e-3, 0.01, 50, 1));
  auto current = one_cell_report(noisy_samples(1e-3, 0.01, 50, 1));
  current.cells[0].grad_norms = {1.0, std::numeric_limits<double>::infinity(), 2.0};
  current.cells[0].scaler = ScalerTelemetry{{65536.0, 32768.0, 32768.0}, {}};
  const auto taken = check(base, current);
  EXPECT_FALSE(taken.passed);
  EXPECT_NE(render_check_text(taken, {}).find("gradient norm not finite at step 1"), std::string::npos)
      << render_check_text(taken, {});
  current.cells[0].scaler->skipped_steps = {1};
  EXPECT_TRUE(check(base, current).passed) << render_check_text(check(base, current), {});
}

TEST(Check, OptionsThatCannotJudgeAreRefused) {
  const auto comparison =
      compare_reports(ampbench::testing::make_sample_report(), ampbench::testing::make_sample_report());
  for (const double alpha : {std::nan(""), 0.0, -0.1, 0.6}) {
    CheckOptions options;
    options.alpha = alpha;
    EXPECT_THROW((void)check_reports(comparison, options), std::invalid_argument) << alpha;
  }
  CheckOptions options;
  options.max_slowdown = std::nan("");
  EXPECT_THROW((void)check_reports(comparison, options), std::invalid_argument);
  options = CheckOptions{};
  options.max_divergence = -1.0;
  EXPECT_THROW((void)check_reports(comparison, options), std::invalid_argument);
  EXPECT_NO_THROW((void)check_reports(comparison, CheckOptions{}));
}

}  // namespace
