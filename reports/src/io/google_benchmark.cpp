#include "ampbench/reports/google_benchmark.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <map>
#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

#include "ampbench/reports/json_reader.h"
#include "ampbench/reports/stats.h"

namespace ampbench::reports {
namespace {

using detail::fail_at;

double seconds_per(const std::string& unit, const std::string& path) {
  static const std::map<std::string, double> kUnits = {{"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1.0}};
  const auto found = kUnits.find(unit);
  if (found == kUnits.end()) fail_at(path, "unknown time unit \"" + unit + "\"");
  return found->second;
}

Environment environment_from_context(const nlohmann::json& context) {
  // Google Benchmark names no CPU model; its CPU count and clock stand in for it, so that check's
  // hardware comparison still sees a different machine.
  Environment environment;
  environment.ampbench_version = "google-benchmark";
  const auto text = [&context](const char* key) {
    const auto found = context.find(key);
    return found != context.end() && found->is_string() ? found->get<std::string>() : std::string();
  };
  // Clamped: a double beyond int's range would make the casts below undefined.
  const auto number = [&context](const char* key) {
    const auto found = context.find(key);
    const double value = found != context.end() && found->is_number() ? found->get<double>() : 0.0;
    return std::isfinite(value) ? std::clamp(value, 0.0, 1e9) : 0.0;
  };
  environment.hostname = text("host_name");
  environment.timestamp_utc = text("date");
  environment.threads = static_cast<int>(number("num_cpus"));
  environment.cpu_model = std::to_string(environment.threads) + " CPUs at " +
                          std::to_string(static_cast<long long>(number("mhz_per_cpu"))) + " MHz";
  environment.devices.push_back({"cpu", environment.cpu_model, "", 0, environment.threads, ""});
  return environment;
}

// Google Benchmark writes a double that is not finite as NaN, -NaN, Infinity or -Infinity, which
// JSON does not have: the coefficient-of-variation aggregate of a counter whose mean is 0 (any
// zero counter with --benchmark_repetitions) is NaN. The text with each such value outside strings
// made null, which the readers take as a missing number; nullopt when there is none.
std::optional<std::string> non_finite_literals_as_null(const std::string& text) {
  static constexpr std::array<std::string_view, 4> kLiterals = {"-Infinity", "Infinity", "-NaN", "NaN"};
  std::string out;
  out.reserve(text.size());
  bool in_string = false;
  bool replaced = false;
  char last_outside = '\0';  // the last character outside strings that was not white space
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < text.size()) {
        out += text[++i];
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') in_string = true;
    // Only where a value starts: after ':', ',' or '['.
    if (last_outside == ':' || last_outside == ',' || last_outside == '[') {
      const auto literal = std::find_if(kLiterals.begin(), kLiterals.end(), [&](std::string_view candidate) {
        return text.compare(i, candidate.size(), candidate) == 0;
      });
      if (literal != kLiterals.end()) {
        out += "null";
        i += literal->size() - 1;
        last_outside = 'l';
        replaced = true;
        continue;
      }
    }
    out += c;
    if (!std::isspace(static_cast<unsigned char>(c))) last_outside = c;
  }
  return replaced ? std::optional(out) : std::nullopt;
}

// Adds one benchmark entry's sample to its cell (created on first sight, in file order).
void add_benchmark(const nlohmann::json& entry, const std::string& path, Report& report,
                   std::map<std::string, std::size_t>& cell_index) {
  detail::ObjectReader fields(entry, path);
  const std::string name = fields.text("name");
  const auto* run_type = fields.optional("run_type");
  if (run_type != nullptr && detail::read_string(*run_type, fields.path_of("run_type")) != "iteration") return;
  const auto* run_name = fields.optional("run_name");
  const std::string cell_name = run_name ? detail::read_string(*run_name, fields.path_of("run_name")) : name;
  auto [position, inserted] = cell_index.try_emplace(cell_name, report.cells.size());
  if (inserted) {
    CellResult cell;
    cell.workload = cell_name;
    cell.mode = "benchmark";
    cell.device = "cpu";
    cell.tensor_cores.reason = "not measured by Google Benchmark";
    report.cells.push_back(std::move(cell));
  }
  CellResult& cell = report.cells[position->second];
  if (const auto* error = fields.optional("error_occurred");
      error && detail::read_bool(*error, fields.path_of("error_occurred"))) {
    cell.status = CellStatus::kFailed;
    const auto* message = fields.optional("error_message");
    cell.error =
        message ? detail::read_string(*message, fields.path_of("error_message")) : "benchmark reported an error";
    return;
  }
  const double unit = seconds_per(fields.text("time_unit"), fields.path_of("time_unit"));
  if (cell.step_times_s.size() == kMaxStepSamplesPerCell) {
    fail_at(path, "more than " + std::to_string(kMaxStepSamplesPerCell) + " repetitions of \"" + cell_name + "\"");
  }
  // Checked after the unit: 1e-320 ns is positive, but not once in seconds.
  const double seconds = detail::read_finite_number(fields.required("real_time"), fields.path_of("real_time")) * unit;
  if (!(seconds > 0.0)) fail_at(fields.path_of("real_time"), "expected a time above 0");
  cell.step_times_s.push_back(seconds);
}

}  // namespace

bool is_google_benchmark_json(const nlohmann::json& json) {
  return json.is_object() && json.contains("context") && json.contains("benchmarks") && !json.contains("schema");
}

Report report_from_google_benchmark(const nlohmann::json& json) {
  if (!json.is_object()) fail_at("", std::string("expected an object, got ") + json.type_name());
  if (!json.contains("context") || !json["context"].is_object()) fail_at("context", "expected an object");
  Report report;
  report.schema = kGoogleBenchmarkSchema;
  report.environment = environment_from_context(json["context"]);
  const auto& benchmarks = json.contains("benchmarks") ? json["benchmarks"] : nlohmann::json();
  if (!benchmarks.is_array()) fail_at("benchmarks", std::string("expected an array, got ") + benchmarks.type_name());
  std::map<std::string, std::size_t> cell_index;
  for (std::size_t i = 0; i < benchmarks.size(); ++i) {
    add_benchmark(benchmarks[i], "benchmarks[" + std::to_string(i) + "]", report, cell_index);
  }
  // No cell would make check pass having compared nothing: say why there is none instead.
  if (benchmarks.empty()) fail_at("benchmarks", "empty: no benchmark ran (a --benchmark_filter that matches none?)");
  if (report.cells.empty()) {
    fail_at("benchmarks",
            "only aggregates (mean, median, ...), no repetitions to compare: run the benchmark without "
            "--benchmark_report_aggregates_only");
  }
  for (auto& cell : report.cells) {
    if (cell.status == CellStatus::kOk && !cell.step_times_s.empty())
      cell.throughput.step_time_s = summarize(cell.step_times_s);
  }
  return report;
}

Report parse_report_or_google_benchmark_text(const std::string& text, const std::string& source) {
  nlohmann::json json;
  try {
    json = parse_json_text(text, source);
  } catch (const ReportError&) {
    // Google Benchmark's own output with a value that is not finite is read, with null for it; an
    // ampbench report never has such a literal and stays refused, with the strict parser's error.
    const auto lenient = non_finite_literals_as_null(text);
    if (!lenient) throw;
    try {
      json = parse_json_text(*lenient, source);
    } catch (const ReportError&) {
      json = nullptr;
    }
    if (!is_google_benchmark_json(json)) throw;
  }
  try {
    return is_google_benchmark_json(json) ? report_from_google_benchmark(json) : parse_report(json);
  } catch (const ReportError& error) {
    throw ReportError(source + ": " + error.what());
  }
}

Report read_report_or_google_benchmark(const std::filesystem::path& path, std::uintmax_t max_bytes) {
  return parse_report_or_google_benchmark_text(read_text_file(path, max_bytes), path.string());
}

}  // namespace ampbench::reports
