// Google Benchmark's JSON output (--benchmark_format=json or --benchmark_out) read as a report, so
// that compare and check judge the micro-benchmarks in bench/ with the same statistics. Each
// benchmark run name becomes a cell (workload = run name, mode "benchmark", device "cpu") whose
// samples are the repetitions' real times; aggregates (mean, median, stddev, ...) are skipped,
// since check recomputes its statistics from the samples. Run with --benchmark_repetitions=N
// (N >= 9 lets the U test reach p < 0.01 against the same count) to give check something to test.
#pragma once

#include <filesystem>

#include <nlohmann/json_fwd.hpp>

#include "ampbench/reports/report.h"
#include "ampbench/reports/report_json.h"

namespace ampbench::reports {

// The `schema` of a Report read from Google Benchmark JSON, so that readers can tell it from an
// ampbench report (compare refuses to mix the two).
inline constexpr const char* kGoogleBenchmarkSchema = "google-benchmark";

// A JSON object with "context" and "benchmarks" and no "schema": Google Benchmark's output.
[[nodiscard]] bool is_google_benchmark_json(const nlohmann::json& json);

// Throws ReportError naming the field ("benchmarks[3].real_time: expected a number, got string"),
// and for a file with no repetition to compare (no benchmarks, or aggregates alone).
[[nodiscard]] Report report_from_google_benchmark(const nlohmann::json& json);

// An ampbench report or Google Benchmark JSON in text, told apart by their content; every error is
// a ReportError that starts with `source`. The fuzz target's entry point (tests/fuzz).
[[nodiscard]] Report parse_report_or_google_benchmark_text(const std::string& text, const std::string& source);
// The same, read from a file; errors as read_report.
[[nodiscard]] Report read_report_or_google_benchmark(const std::filesystem::path& path,
                                                     std::uintmax_t max_bytes = kMaxReportBytes);

}  // namespace ampbench::reports
