// What a gate must not be fooled by: duplicated keys, step times that are not positive, an "ok"
// cell without samples or with a summary of other samples, two cells with one key, verdicts check
// does not know, more samples than the limit; and JSON writing that survives non-UTF-8 strings.
#include <gtest/gtest.h>

#include "ampbench/reports/derived_figures.h"
#include "ampbench/reports/google_benchmark.h"
#include "ampbench/reports/report_json.h"
#include "sample_report.h"
#include "support/thrown_message.h"

namespace {

using namespace ampbench::reports;
using ampbench::testing::make_sample_report;

nlohmann::json sample_json() { return nlohmann::json(make_sample_report()); }

std::string text_error(const std::string& text) {
  return ampbench::testing::thrown_message<ReportError>(
      [&] { (void)parse_report_or_google_benchmark_text(text, "r.json"); });
}

std::string json_error(const nlohmann::json& json) { return text_error(json.dump()); }

TEST(StrictJson, ADuplicatedKeyIsRefusedWithItsPath) {
  // nlohmann keeps the last "cells": an empty list, which a gate would pass.
  std::string text = sample_json().dump();
  text.insert(text.size() - 1, ",\"cells\":[]");
  EXPECT_EQ(text_error(text), "r.json: duplicate key \"cells\"");
  text = sample_json().dump();
  const auto mode = text.find("\"mode\":\"fp16\"");
  text.insert(mode, "\"mode\":\"fp32\",");
  EXPECT_EQ(text_error(text), "r.json: cells[1]: duplicate key \"mode\"");
  // The same key in two different objects is fine.
  EXPECT_EQ(text_error(sample_json().dump()), "(no error)");
}

// Cells timed in the same rounds must agree on their number; a cell's 2-rank twin was timed in
// rounds of its own, so it may have another number.
TEST(StrictJson, RoundsAgreeAmongTheCellsOfOneRanks) {
  const auto with_rounds = [](CellResult& cell, std::size_t rounds) {
    Rounds timed;
    timed.interleaved_modes = {"fp32", "fp16"};
    timed.steps_per_round = static_cast<std::int64_t>(cell.step_times_s.size() / rounds);
    for (std::size_t step = 0; step < cell.step_times_s.size(); ++step)
      timed.step_round.push_back(static_cast<std::int64_t>(step * rounds / cell.step_times_s.size()));
    timed.step_time_s.assign(rounds, 0.0);
    cell.rounds = timed;
    derive_step_figures(cell);
  };
  Report report = ampbench::testing::make_data_parallel_report();
  with_rounds(report.cells[0], 5);  // simple_net fp32 and fp16 on 1 rank
  with_rounds(report.cells[1], 5);
  with_rounds(report.cells[3], 3);  // and on 2 ranks
  with_rounds(report.cells[4], 3);
  relate_to_fp32(report);
  EXPECT_EQ(json_error(nlohmann::json(report)), "(no error)");
  with_rounds(report.cells[4], 6);
  EXPECT_EQ(json_error(nlohmann::json(report)),
            "r.json: cells[4].rounds.step_time_s: 6 rounds, but cells[3] (fp32), timed in the same rounds, has 3");
}

// The sample report with SimpleNet's FP32 and FP16 cells timed in the same five rounds, every
// derived figure computed from the samples as a run computes it.
Report sample_with_rounds() {
  Report report = make_sample_report();
  for (auto* cell : {&report.cells[0], &report.cells[1]}) {
    Rounds rounds;
    rounds.interleaved_modes = {"fp32", "fp16"};
    rounds.steps_per_round = 6;
    for (std::size_t step = 0; step < cell->step_times_s.size(); ++step)
      rounds.step_round.push_back(static_cast<std::int64_t>(step / 6));
    rounds.step_time_s.assign(5, 0.0);
    rounds.probe_s = {2e-4, 2e-4, 2e-4, 3e-4, 2e-4};  // round 3 on a slower machine
    rounds.slow_machine_factor = kSlowMachineFactor;
    cell->rounds = rounds;
    derive_step_figures(*cell);
  }
  relate_to_fp32(report);
  return report;
}

// A gate that read stored summaries would judge figures no longer true of the samples beside them.
TEST(StrictJson, DerivedFiguresMustAgreeWithTheirSamples) {
  const auto good = nlohmann::json(sample_with_rounds());
  EXPECT_EQ(json_error(good), "(no error)");
  // The case: every step 5x slower, its summary too, the round medians left as they were.
  auto slower = sample_with_rounds();
  const auto rounds = *slower.cells[0].rounds;
  for (double& t : slower.cells[0].step_times_s) t *= 5.0;
  derive_step_figures(slower.cells[0]);
  slower.cells[0].rounds = rounds;
  EXPECT_EQ(json_error(nlohmann::json(slower)).rfind("r.json: cells[0].rounds.step_time_s[0]: 0.00124", 0), 0u)
      << json_error(nlohmann::json(slower));
  auto json = good;
  json["cells"][0]["throughput"]["step_time_s"]["median"] = 0.5;
  EXPECT_EQ(json_error(json),
            "r.json: cells[0].throughput.step_time_s.median: 0.5 is stored, but the report's samples give 0.00125 (a "
            "derived figure must agree with the samples it summarises)");
  json = good;
  json["cells"][0]["rounds"]["step_time"]["ci_high"] = 1.0;
  EXPECT_EQ(json_error(json).rfind("r.json: cells[0].rounds.step_time.ci_high: 1 is stored", 0), 0u);
  json = good;
  json["cells"][1]["speedup_vs_fp32"]["value"] = 2.0;
  EXPECT_EQ(json_error(json).rfind("r.json: cells[1].speedup_vs_fp32.value: 2 is stored", 0), 0u);
  json = good;
  json["cells"][1]["memory_ratio_vs_fp32"]["value"] = 0.5;
  EXPECT_EQ(json_error(json).rfind("r.json: cells[1].memory_ratio_vs_fp32.value: 0.5 is stored", 0), 0u);
  json = good;
  json["cells"][2]["divergence"]["verdict"] = "within the noise floor";
  EXPECT_EQ(json_error(json).rfind("r.json: cells[2].divergence.verdict: \"within the noise floor\" is stored", 0), 0u)
      << json_error(json);
  json = good;
  json["cells"][1]["throughput"]["samples_per_s"] = 1.0;
  EXPECT_EQ(json_error(json).rfind("r.json: cells[1].throughput.samples_per_s: 1 is stored", 0), 0u);
  json = good;
  json["cells"][0]["throughput"]["fraction_of_peak"] = 0.9;
  EXPECT_EQ(json_error(json).rfind("r.json: cells[0].throughput.fraction_of_peak: 0.9 is stored", 0), 0u)
      << json_error(json);
  json = good;
  json["environment"].erase("gemm_peaks");
  EXPECT_EQ(json_error(json),
            "r.json: cells[0].throughput.fraction_of_peak: is stored, but the report's environment has no measured "
            "GEMM peak it can be derived from");
  ASSERT_EQ(good["cells"][1]["rounds"]["slow_machine_rounds"], 1);
  json = good;
  json["cells"][1]["rounds"]["slow_machine_rounds"] = 0;
  EXPECT_EQ(json_error(json),
            "r.json: cells[1].rounds.slow_machine_rounds: 0 is stored, but the report's samples give 1 (a derived "
            "figure must agree with the samples it summarises)");
  json = good;
  json["cells"][1]["rounds"]["slow_machine_factor"] = 0.5;
  EXPECT_EQ(json_error(json), "r.json: cells[1].rounds.slow_machine_factor: must be at least 1");
  json = good;
  json["cells"][1]["rounds"].erase("slow_machine_rounds");
  EXPECT_EQ(json_error(json).rfind("r.json: cells[1].rounds.slow_machine_rounds: ", 0), 0u) << json_error(json);
}

// A figure with nothing to derive it from is as untrue as a wrong one; a figure left out is not.
TEST(StrictJson, ARelationNeedsTheCellItRelatesTo) {
  auto json = nlohmann::json(sample_with_rounds());
  json["cells"][0]["speedup_vs_fp32"] = {{"value", 1.0}, {"ci_low", 1.0}, {"ci_high", 1.0}};
  EXPECT_EQ(json_error(json),
            "r.json: cells[0].speedup_vs_fp32: is stored, but the report has no cell it can be "
            "derived from");
  json = nlohmann::json(sample_with_rounds());
  json["cells"][1]["speedup_vs_fp32"] = nullptr;
  json["cells"][1]["divergence"] = nullptr;
  EXPECT_EQ(json_error(json), "(no error)");
}

TEST(StrictJson, DeepNestingIsRefused) {
  const std::string deep = std::string(kMaxJsonDepth + 1, '[') + std::string(kMaxJsonDepth + 1, ']');
  EXPECT_NE(text_error(deep).find("nested deeper than 64 levels"), std::string::npos) << text_error(deep);
}

TEST(StrictJson, StepTimesMustBePositive) {
  for (const double bad : {0.0, -0.001}) {
    auto json = sample_json();
    json["cells"][0]["step_times_s"][2] = bad;
    EXPECT_EQ(json_error(json).rfind("r.json: cells[0].step_times_s[2]: expected a time in seconds above 0", 0), 0u)
        << json_error(json);
  }
  auto json = sample_json();
  json["cells"][1]["host_step_times_s"] = {0.5, -1.0};
  EXPECT_EQ(json_error(json).rfind("r.json: cells[1].host_step_times_s[1]: expected a time", 0), 0u);
  // Infinity cannot be spelled in JSON: 1e999 fails as a number overflow, NaN as a literal.
  std::string text = sample_json().dump();
  text.replace(text.find("\"step_times_s\":[") + 16, 0, "1e999,");
  EXPECT_EQ(text_error(text), "r.json: not valid JSON: number overflow parsing '1e999'");
}

TEST(StrictJson, AnOkCellNeedsStepTimesAndTheirCount) {
  auto json = sample_json();
  json["cells"][0]["step_times_s"] = nlohmann::json::array();
  EXPECT_EQ(json_error(json), "r.json: cells[0].step_times_s: a cell with status \"ok\" needs step times");
  json = sample_json();
  json["cells"][0]["step_times_s"].erase(0);
  EXPECT_EQ(json_error(json),
            "r.json: cells[0].throughput.step_time_s.count: 30 does not match the 29 values of step_times_s");
  json = sample_json();
  EXPECT_EQ(json["cells"][4]["status"], "failed");
  EXPECT_EQ(json_error(json), "(no error)");  // a failed cell has none
}

TEST(StrictJson, PageFaultsCountEveryTimedStep) {
  auto json = sample_json();
  json["cells"][0]["page_faults"]["minor"].erase(0);
  EXPECT_EQ(json_error(json), "r.json: cells[0].page_faults.minor: 29 values for 30 timed steps");
  json = sample_json();
  json["cells"][0]["page_faults"]["major"][3] = -1;
  EXPECT_EQ(json_error(json).rfind("r.json: cells[0].page_faults.major[3]: ", 0), 0u) << json_error(json);
}

TEST(StrictJson, TwoCellsWithOneKeyAreRefused) {
  auto json = sample_json();
  json["cells"].push_back(json["cells"][2]);
  EXPECT_EQ(json_error(json), "r.json: cells[6]: the same workload, mode, device, preset and ranks as cells[2]");
  // The same cell on 2 ranks is another cell.
  json["cells"][6]["ranks"] = 2;
  for (const char* relation : {"speedup_vs_fp32", "memory_ratio_vs_fp32", "divergence"})
    json["cells"][6][relation] = nullptr;                        // there is no FP32 cell of 2 ranks to relate it to
  json["cells"][6]["throughput"]["fraction_of_peak"] = nullptr;  // of two processes' peaks, not one's
  EXPECT_EQ(json_error(json), "(no error)");
}

TEST(StrictJson, CheckedFieldsHaveTheirRanges) {
  auto json = sample_json();
  json["cells"][1]["divergence"]["verdict"] = "within bound";  // the old verdicts are not read as new ones
  EXPECT_EQ(json_error(json),
            "r.json: cells[1].divergence.verdict: expected \"within the noise floor\", \"above the floor\", "
            "\"diverged\" or \"non-finite loss\", got \"within bound\"");
  json = sample_json();
  json["cells"][0]["memory"]["peak_tensor_bytes"] = -1;
  EXPECT_EQ(json_error(json),
            "r.json: cells[0].memory.peak_tensor_bytes: expected an integer from 0 to "
            "9223372036854775807, got -1");
  json = sample_json();
  json["environment"]["threads"] = 4294967297LL;
  EXPECT_EQ(json_error(json).rfind("r.json: environment.threads: expected an integer from 0 to 2147483647", 0), 0u);
  // Untimed steps per block: at least one; a report from before the field had one.
  json = nlohmann::json(sample_with_rounds());
  ASSERT_EQ(json["cells"][1]["rounds"]["untimed_steps_per_block"], 1);
  json["cells"][1]["rounds"]["untimed_steps_per_block"] = 0;
  EXPECT_EQ(json_error(json).rfind("r.json: cells[1].rounds.untimed_steps_per_block: expected an integer from 1", 0),
            0u)
      << json_error(json);
  json["cells"][1]["rounds"]["untimed_steps_per_block"] = 2;
  EXPECT_EQ(parse_report_or_google_benchmark_text(json.dump(), "r.json").cells[1].rounds->untimed_steps_per_block, 2);
  json["cells"][1]["rounds"].erase("untimed_steps_per_block");
  EXPECT_EQ(parse_report_or_google_benchmark_text(json.dump(), "r.json").cells[1].rounds->untimed_steps_per_block, 1);
}

// The numerics pass's curves are drawn and compared evaluation by evaluation: each run has one
// eval loss per evaluation step, and the steps go forward within the pass.
TEST(StrictJson, NumericsCurvesMatchTheirEvaluationSteps) {
  auto json = sample_json();
  json["cells"][0]["numerics"]["run"]["eval_loss"].erase(0);
  EXPECT_EQ(json_error(json), "r.json: cells[0].numerics.run.eval_loss: 8 values for 9 evaluations (eval_steps)");
  json = sample_json();
  json["cells"][0]["numerics"]["floor"]["eval_loss"].push_back(1.0);
  EXPECT_EQ(json_error(json), "r.json: cells[0].numerics.floor.eval_loss: 10 values for 9 evaluations (eval_steps)");
  json = sample_json();
  json["cells"][1]["numerics"]["eval_steps"][3] = 2;
  EXPECT_EQ(json_error(json),
            "r.json: cells[1].numerics.eval_steps[3]: step 2 is not after the previous evaluation and within the 16 "
            "steps");
  json = sample_json();
  json["cells"][1]["numerics"]["eval_steps"][8] = 17;
  EXPECT_EQ(json_error(json).rfind("r.json: cells[1].numerics.eval_steps[8]: step 17 is not after", 0), 0u);
  json = sample_json();
  json["cells"][1]["numerics"]["steps"] = -1;
  EXPECT_EQ(json_error(json).rfind("r.json: cells[1].numerics.steps: expected an integer from 0 to", 0), 0u);
  json = sample_json();
  json["cells"][1]["numerics"]["frobnicate"] = 1;
  EXPECT_EQ(json_error(json), "r.json: cells[1].numerics.frobnicate: unknown field");
}

// A pass that failed part-way keeps what it had: fewer evaluations than planned, and its error.
TEST(StrictJson, AFailedNumericsPassMayStopEarly) {
  auto json = sample_json();
  auto& numerics = json["cells"][1]["numerics"];
  numerics["run"]["eval_loss"] = nlohmann::json::array();
  numerics["run"]["train_loss"] = nlohmann::json::array();
  EXPECT_EQ(json_error(json), "r.json: cells[1].numerics.run.eval_loss: 0 values for 9 evaluations (eval_steps)");
  numerics["error"] = "numerics pass: the worker was killed by signal 9";
  json["cells"][1]["divergence"] = nullptr;  // a failed pass has no divergence (derived_figures.h)
  EXPECT_EQ(json_error(json), "(no error)");
  numerics["run"]["eval_loss"] = std::vector<double>(10, 1.0);
  EXPECT_EQ(json_error(json), "r.json: cells[1].numerics.run.eval_loss: 10 values for 9 evaluations (eval_steps)");
}

// A GradScaler's start-up before the pass: absent reads as none (older reports); present, the
// scale it states must follow from the tries, and every field is checked.
TEST(StrictJson, AScaleCalibrationIsReadBackAndItsStartMustFollowFromItsTries) {
  auto json = sample_json();
  auto& run = json["cells"][1]["numerics"]["run"];
  EXPECT_FALSE(parse_report_or_google_benchmark_text(json.dump(), "r.json").cells[1].numerics->run.scale_calibration);
  run["scale_calibration"] = {
      {"initial_scale", 65536.0}, {"start_scale", 16384.0}, {"skipped_tries", 2}, {"settled", true}};
  const auto calibration =
      *parse_report_or_google_benchmark_text(json.dump(), "r.json").cells[1].numerics->run.scale_calibration;
  EXPECT_EQ(calibration.start_scale(), 16384.0);
  EXPECT_EQ(calibration.skipped_tries, 2);
  EXPECT_TRUE(calibration.settled);
  run["scale_calibration"]["start_scale"] = 32768.0;
  EXPECT_EQ(json_error(json),
            "r.json: cells[1].numerics.run.scale_calibration.start_scale: must be initial_scale halved once per "
            "skipped try when settled, else initial_scale");
  run["scale_calibration"] = {
      {"initial_scale", 65536.0}, {"start_scale", 65536.0}, {"skipped_tries", 17}, {"settled", false}};
  EXPECT_EQ(json_error(json), "(no error)");
  run["scale_calibration"]["initial_scale"] = -1.0;
  EXPECT_EQ(json_error(json), "r.json: cells[1].numerics.run.scale_calibration.initial_scale: must be positive");
  run["scale_calibration"]["initial_scale"] = 65536.0;
  run["scale_calibration"]["skipped_tries"] = 65;
  EXPECT_NE(json_error(json).find("cells[1].numerics.run.scale_calibration.skipped_tries"), std::string::npos);
  run["scale_calibration"].erase("skipped_tries");
  EXPECT_NE(json_error(json).find("scale_calibration"), std::string::npos) << json_error(json);
}

// Reports from before the numerics pass judged divergence on the timed steps with a t-test: that
// figure is not this version's, so it reads as no divergence rather than as an error.
TEST(StrictJson, AnOldShapeDivergenceReadsAsAbsent) {
  auto json = sample_json();
  json["cells"][2]["divergence"] = {{"reference_mode", "fp32"},
                                    {"steps_compared", 40},
                                    {"max_relative_difference", 0.2},
                                    {"final_relative_difference", 0.2},
                                    {"window", 20},
                                    {"window_mean_relative_difference", 0.15},
                                    {"p_value", 1e-6},
                                    {"bound", 0.05},
                                    {"verdict", "diverged"}};
  json["cells"][2].erase("numerics");
  const Report report = parse_report_or_google_benchmark_text(json.dump(), "r.json");
  EXPECT_FALSE(report.cells[2].divergence.has_value());
  EXPECT_FALSE(report.cells[2].numerics.has_value());
  EXPECT_TRUE(report.cells[1].divergence.has_value());
}

TEST(StrictJson, MoreStepTimesThanTheLimitAreRefused) {
  auto json = sample_json();
  auto& times = json["cells"][0]["step_times_s"];
  times = nlohmann::json::array();
  for (std::size_t i = 0; i <= kMaxStepSamplesPerCell; ++i) times.push_back(0.001);
  json["cells"][0]["throughput"]["step_time_s"]["count"] = kMaxStepSamplesPerCell + 1;
  EXPECT_EQ(json_error(json), "r.json: cells[0].step_times_s: 1000001 values; the limit is 1000000");
}

TEST(StrictJson, GoogleBenchmarkTimesMustBePositive) {
  const auto benchmark = [](double real_time) {
    return nlohmann::json{
        {"context", {{"num_cpus", 1e300}, {"mhz_per_cpu", -1e300}}},
        {"benchmarks", {{{"name", "BM_A"}, {"run_type", "iteration"}, {"real_time", real_time}, {"time_unit", "ns"}}}}};
  };
  EXPECT_EQ(json_error(benchmark(1.0)), "(no error)");  // and the absurd context does not overflow a cast
  EXPECT_EQ(json_error(benchmark(0.0)), "r.json: benchmarks[0].real_time: expected a time above 0");
  EXPECT_EQ(json_error(benchmark(1e-320)), "r.json: benchmarks[0].real_time: expected a time above 0");
}

TEST(StrictJson, NonUtf8StringsAreWrittenReplacedNotThrown) {
  Report report = make_sample_report();
  report.environment.hostname = "host\xff";
  report.environment.cpu_model = "CPU \xc3(";
  std::string text;
  ASSERT_NO_THROW(text = report_to_text(report));
  EXPECT_NE(text.find("\"hostname\": \"host\xef\xbf\xbd\""), std::string::npos);
  EXPECT_EQ(parse_report_or_google_benchmark_text(text, "r.json").environment.hostname, "host\xef\xbf\xbd");
  EXPECT_EQ(json_text(nlohmann::json("a\xff")), "\"a\xef\xbf\xbd\"");
}

}  // namespace
