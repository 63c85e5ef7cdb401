// The report's JSON form: strict JSON out (a non-finite double is written as null, never as a bare
// NaN), validated JSON in (every field checked, unknown and missing fields refused, errors naming
// the field's path), and the file operations with their limits. The schema is
// reports/schema/report.schema.json; kReportSchema in report.h is the version both check (the
// reader also takes kReportSchemaV1).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "ampbench/reports/report.h"

namespace ampbench::reports {

// A report that cannot be read or written. The message names the culprit: the file, and the
// field's path inside it, e.g. "cells[2].throughput.step_time_s.median: expected a number, got
// string".
class ReportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Reports larger than this are refused before a byte is read: a real report of thousands of steps
// per cell is a few MiB.
inline constexpr std::uintmax_t kMaxReportBytes = 256ULL * 1024 * 1024;
// More step times than this in one cell are refused on read (cells[i].step_times_s), so that
// compare and check cost a bounded time: a million steps is days of training at 0.1 s a step.
inline constexpr std::size_t kMaxStepSamplesPerCell = kMaxStepsPerCell;  // run_config.h
// JSON nested deeper than this is refused while parsing; a report nests six levels.
inline constexpr std::size_t kMaxJsonDepth = 64;

// Writing. Doubles that are not finite become null; std::optional fields that are empty become null.
void to_json(nlohmann::json& out, const SampleSummary& value);
void to_json(nlohmann::json& out, const ModeSettings& value);
void to_json(nlohmann::json& out, const Throughput& value);
void to_json(nlohmann::json& out, const Memory& value);
void to_json(nlohmann::json& out, const ScalerTelemetry& value);
void to_json(nlohmann::json& out, const OpAudit& value);
void to_json(nlohmann::json& out, const PrecisionAudit& value);
void to_json(nlohmann::json& out, const TensorCoreMetric& value);
void to_json(nlohmann::json& out, const TensorCoreUtilization& value);
void to_json(nlohmann::json& out, const TensorRange& value);
void to_json(nlohmann::json& out, const LayerRangeStep& value);
void to_json(nlohmann::json& out, const LayerRanges& value);
void to_json(nlohmann::json& out, const NonFiniteOrigin& value);
void to_json(nlohmann::json& out, const LayerDiagnostics& value);
void to_json(nlohmann::json& out, const NumericsRun& value);
void to_json(nlohmann::json& out, const Numerics& value);
void to_json(nlohmann::json& out, const Divergence& value);
void to_json(nlohmann::json& out, const RoundEstimate& value);
void to_json(nlohmann::json& out, const Rounds& value);
void to_json(nlohmann::json& out, const TimeBreakdown& value);
void to_json(nlohmann::json& out, const DataParallel& value);
void to_json(nlohmann::json& out, const Finding& value);
void to_json(nlohmann::json& out, const PageFaults& value);
void to_json(nlohmann::json& out, const WorkerRerun& value);
void to_json(nlohmann::json& out, const CellResult& value);
void to_json(nlohmann::json& out, const RunConfig& value);
void to_json(nlohmann::json& out, const Report& value);

// Reading, strictly: each throws ReportError naming the field (paths relative to the value given).
// A null where a double is expected reads as NaN, the inverse of writing; per-step times must be
// finite numbers. An optional field may be null or absent. Report's from_json is parse_report.
void from_json(const nlohmann::json& in, SampleSummary& value);
void from_json(const nlohmann::json& in, ModeSettings& value);
void from_json(const nlohmann::json& in, Throughput& value);
void from_json(const nlohmann::json& in, Memory& value);
void from_json(const nlohmann::json& in, ScalerTelemetry& value);
void from_json(const nlohmann::json& in, OpAudit& value);
void from_json(const nlohmann::json& in, PrecisionAudit& value);
void from_json(const nlohmann::json& in, TensorCoreMetric& value);
void from_json(const nlohmann::json& in, TensorCoreUtilization& value);
void from_json(const nlohmann::json& in, Numerics& value);
void from_json(const nlohmann::json& in, Divergence& value);
void from_json(const nlohmann::json& in, CellResult& value);
void from_json(const nlohmann::json& in, RunConfig& value);
void from_json(const nlohmann::json& in, Report& value);

// Checks the schema version first (`schema: expected "ampbench.report/2" or "ampbench.report/1",
// got "..."`), then every field. A version 1 report (before ranks) reads as cells of one rank, and
// its schema becomes kReportSchema: written again, it is a current report.
[[nodiscard]] Report parse_report(const nlohmann::json& in);

// Parses JSON text strictly (no NaN/Infinity literals, no comments, nothing after the value, no
// key twice in one object, at most kMaxJsonDepth levels); `source` names the text in the error
// ("FILE: not valid JSON: ...", "FILE: cells[1]: duplicate key \"mode\"").
[[nodiscard]] nlohmann::json parse_json_text(const std::string& text, const std::string& source);

// JSON text of value that never throws for strings that are not UTF-8 (a hostname or CPU model
// taken from the environment): invalid bytes become U+FFFD. indent as nlohmann's dump.
[[nodiscard]] std::string json_text(const nlohmann::json& value, int indent = -1);

// Reads a file of at most max_bytes into memory, refusing larger files before reading them.
[[nodiscard]] std::string read_text_file(const std::filesystem::path& path, std::uintmax_t max_bytes = kMaxReportBytes);

// read_text_file + parse_json_text + parse_report; every error is a ReportError that starts with
// the file's path.
[[nodiscard]] Report read_report(const std::filesystem::path& path, std::uintmax_t max_bytes = kMaxReportBytes);

// The report as pretty-printed strict JSON, with a final newline.
[[nodiscard]] std::string report_to_text(const Report& report);

// Writes the report to a temporary file in the target's folder, then renames it over the target,
// so a reader never sees half a report and a failed write leaves nothing behind.
void write_report_atomically(const Report& report, const std::filesystem::path& path);

}  // namespace ampbench::reports
