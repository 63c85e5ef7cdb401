// What a gate must not be fooled by: duplicated keys, step times that are not positive, an "ok"
// cell without samples or with a summary of other samples, two cells with one key, verdicts check
// does not know, more samples than the limit; and JSON writing that survives non-UTF-8 strings.
#include <gtest/gtest.h>

#include "ampbench/reports/google_benchmark.h"
#include "ampbench/reports/report_json.h"
#include "sample_report.h"

namespace {

using namespace ampbench::reports;
using ampbench::testing::make_sample_report;

nlohmann::json sample_json() { return nlohmann::json(make_sample_report()); }

std::string text_error(const std::string& text) {
  try {
    (void)parse_report_or_google_benchmark_text(text, "r.json");
  } catch (const ReportError& error) {
    return error.what();
  }
  return "(no error)";
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

TEST(StrictJson, TwoCellsWithOneKeyAreRefused) {
  auto json = sample_json();
  json["cells"].push_back(json["cells"][2]);
  EXPECT_EQ(json_error(json), "r.json: cells[6]: the same workload, mode, device and preset as cells[2]");
}

TEST(StrictJson, CheckedFieldsHaveTheirRanges) {
  auto json = sample_json();
  json["cells"][1]["divergence"]["verdict"] = "fine";
  EXPECT_EQ(json_error(json),
            "r.json: cells[1].divergence.verdict: expected \"within bound\", \"diverged\" or "
            "\"non-finite loss\", got \"fine\"");
  json = sample_json();
  json["cells"][1]["divergence"]["p_value"] = 1.5;
  EXPECT_EQ(json_error(json), "r.json: cells[1].divergence.p_value: expected a number from 0 to 1");
  json = sample_json();
  json["cells"][0]["memory"]["peak_tensor_bytes"] = -1;
  EXPECT_EQ(json_error(json),
            "r.json: cells[0].memory.peak_tensor_bytes: expected an integer from 0 to "
            "9223372036854775807, got -1");
  json = sample_json();
  json["environment"]["threads"] = 4294967297LL;
  EXPECT_EQ(json_error(json).rfind("r.json: environment.threads: expected an integer from 0 to 2147483647", 0), 0u);
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
