// Google Benchmark's JSON read as a report: repetitions become samples, aggregates are skipped.
#include "ampbench/reports/google_benchmark.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "ampbench/reports/check.h"
#include "support/thrown_message.h"

namespace {

using namespace ampbench::reports;

nlohmann::json benchmark_json(double scale) {
  auto benchmarks = nlohmann::json::array();
  for (int repetition = 0; repetition < 10; ++repetition) {
    benchmarks.push_back({{"name", "BM_Gemm/fp16/512"},
                          {"run_name", "BM_Gemm/fp16/512"},
                          {"run_type", "iteration"},
                          {"repetitions", 10},
                          {"repetition_index", repetition},
                          {"iterations", 100},
                          {"real_time", scale * (100.0 + repetition % 3)},
                          {"cpu_time", 99.0},
                          {"time_unit", "us"}});
  }
  benchmarks.push_back({{"name", "BM_Gemm/fp16/512_mean"},
                        {"run_name", "BM_Gemm/fp16/512"},
                        {"run_type", "aggregate"},
                        {"aggregate_name", "mean"},
                        {"real_time", 101.0},
                        {"time_unit", "us"}});
  benchmarks.push_back({{"name", "BM_Broken"},
                        {"run_type", "iteration"},
                        {"error_occurred", true},
                        {"error_message", "no GPU"},
                        {"real_time", 0},
                        {"time_unit", "ns"}});
  return {{"context",
           {{"date", "2025-01-01T00:00:00+00:00"}, {"host_name", "box"}, {"num_cpus", 2}, {"mhz_per_cpu", 2400}}},
          {"benchmarks", benchmarks}};
}

TEST(GoogleBenchmark, RepetitionsBecomeSamplesAndAggregatesAreSkipped) {
  const auto json = benchmark_json(1.0);
  ASSERT_TRUE(is_google_benchmark_json(json));
  const Report report = report_from_google_benchmark(json);
  ASSERT_EQ(report.cells.size(), 2u);
  EXPECT_EQ(report.cells[0].workload, "BM_Gemm/fp16/512");
  ASSERT_EQ(report.cells[0].step_times_s.size(), 10u);
  EXPECT_DOUBLE_EQ(report.cells[0].step_times_s[1], 101e-6);
  EXPECT_EQ(report.cells[0].throughput.step_time_s.count, 10);
  EXPECT_EQ(report.cells[1].status, CellStatus::kFailed);
  EXPECT_EQ(report.cells[1].error, "no GPU");
  EXPECT_EQ(report.environment.cpu_model, "2 CPUs at 2400 MHz");
}

TEST(GoogleBenchmark, CheckJudgesBenchmarksLikeCells) {
  const auto result = check_reports(compare_reports(report_from_google_benchmark(benchmark_json(1.0)),
                                                    report_from_google_benchmark(benchmark_json(1.2))),
                                    {});
  EXPECT_FALSE(result.passed);
  EXPECT_EQ(result.cells[0].verdict, Verdict::kRegressed);
}

TEST(GoogleBenchmark, WrongTypesAreNamed) {
  auto json = benchmark_json(1.0);
  json["benchmarks"][3]["real_time"] = "fast";
  try {
    (void)report_from_google_benchmark(json);
    FAIL() << "no error";
  } catch (const ReportError& error) {
    EXPECT_STREQ(error.what(), "benchmarks[3].real_time: expected a number, got string");
  }
  json = benchmark_json(1.0);
  json["benchmarks"][0]["time_unit"] = "fortnights";
  EXPECT_THROW((void)report_from_google_benchmark(json), ReportError);
}

std::string error_of(const std::string& text) {
  return ampbench::testing::thrown_message<ReportError>(
      [&] { (void)parse_report_or_google_benchmark_text(text, "gb.json"); });
}

// A file with nothing to compare is an error, never a report of no cells that check would pass.
TEST(GoogleBenchmark, AFileWithoutRepetitionsIsRefusedSayingWhy) {
  auto json = benchmark_json(1.0);
  auto aggregates = nlohmann::json::array();
  for (const auto& entry : json["benchmarks"]) {
    if (entry["run_type"] == "aggregate") aggregates.push_back(entry);
  }
  json["benchmarks"] = aggregates;  // what --benchmark_report_aggregates_only writes
  EXPECT_NE(error_of(json.dump()).find("gb.json: benchmarks: only aggregates (mean, median, ...), no repetitions"),
            std::string::npos)
      << error_of(json.dump());
  json["benchmarks"] = nlohmann::json::array();
  EXPECT_EQ(error_of(json.dump()),
            "gb.json: benchmarks: empty: no benchmark ran (a --benchmark_filter that matches none?)");
}

// Google Benchmark writes NaN, -NaN, Infinity and -Infinity for doubles that are not finite (the cv
// aggregate of a zero counter over repetitions is NaN): its files are read with null for them.
TEST(GoogleBenchmark, ItsNonFiniteLiteralsAreReadAsNull) {
  auto json = benchmark_json(1.0);
  json["benchmarks"][11]["name"] = "BM_Broken: NaN, Infinity";  // inside a string: kept
  json["benchmarks"][0]["host_syncs"] = "COUNTER_A";
  json["benchmarks"][1]["bytes_per_second"] = "COUNTER_B";
  json["benchmarks"][10]["host_syncs"] = "COUNTER_C";  // the mean aggregate
  auto text = json.dump(2);
  const auto put = [&text](const std::string& marker, const std::string& literal) {
    text.replace(text.find("\"" + marker + "\""), marker.size() + 2, literal);
  };
  put("COUNTER_A", "NaN");
  put("COUNTER_B", "-Infinity");
  put("COUNTER_C", "-NaN");
  const auto report = parse_report_or_google_benchmark_text(text, "gb.json");
  ASSERT_EQ(report.cells.size(), 2u);
  EXPECT_EQ(report.cells[0].workload, "BM_Gemm/fp16/512");
  EXPECT_EQ(report.cells[0].step_times_s.size(), 10u);
  EXPECT_EQ(report.cells[1].workload, "BM_Broken: NaN, Infinity");

  // A time that is not finite is still an error, named; an ampbench report is never read leniently.
  auto broken = benchmark_json(1.0);
  broken["benchmarks"][3]["real_time"] = "TIME";
  auto broken_text = broken.dump();
  broken_text.replace(broken_text.find("\"TIME\""), 6, "Infinity");
  EXPECT_EQ(error_of(broken_text), "gb.json: benchmarks[3].real_time: expected a number, got null");
  EXPECT_NE(error_of("{\"schema\": \"ampbench.report/2\", \"x\": NaN}").find("gb.json: not valid JSON"),
            std::string::npos);
  EXPECT_NE(error_of("{\"context\": {}, \"benchmarks\": [NaNa]}").find("gb.json: not valid JSON"), std::string::npos);
}

}  // namespace
