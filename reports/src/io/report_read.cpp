// The report's root read strictly, and the from_json entry points over the readers of its parts
// (cell_read.cpp, environment_read.cpp, layer_diagnostics_read.cpp).
#include <algorithm>
#include <limits>
#include <map>
#include <string>

#include "ampbench/reports/compare.h"
#include "ampbench/reports/derived_figures.h"
#include "ampbench/reports/json_reader.h"
#include "ampbench/reports/report_json.h"
#include "io/report_read.h"

namespace ampbench::reports {
namespace detail {

// Cells timed in the same rounds must agree on how many rounds there were: a mode missing from a
// round would make every paired figure of its workload wrong.
void check_rounds_agree(const std::vector<CellResult>& cells) {
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (!cells[i].rounds) continue;
    for (std::size_t j = 0; j < i; ++j) {
      const auto& other = cells[j];
      const auto& modes = cells[i].rounds->interleaved_modes;
      if (!other.rounds || other.workload != cells[i].workload || other.device != cells[i].device ||
          other.preset != cells[i].preset || other.ranks != cells[i].ranks ||
          std::find(modes.begin(), modes.end(), other.mode) == modes.end() ||
          other.rounds->interleaved_modes != modes) {
        continue;
      }
      if (other.rounds->step_time_s.size() != cells[i].rounds->step_time_s.size()) {
        fail_at("cells[" + std::to_string(i) + "].rounds.step_time_s",
                std::to_string(cells[i].rounds->step_time_s.size()) + " rounds, but cells[" + std::to_string(j) +
                    "] (" + other.mode + "), timed in the same rounds, has " +
                    std::to_string(other.rounds->step_time_s.size()));
      }
    }
  }
}

// compare and check pair cells by their key (workload, mode, device, preset, ranks): a second cell
// with the same key would be silently dropped there, so it is refused here.
void require_unique_cells(const std::vector<CellResult>& cells) {
  std::map<CellKey, std::size_t> first;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const auto [found, inserted] = first.try_emplace(key_of(cells[i]), i);
    if (!inserted) {
      fail_at("cells[" + std::to_string(i) + "]",
              "the same workload, mode, device, preset and ranks as cells[" + std::to_string(found->second) + "]");
    }
  }
}

// The schema names what the cells hold; a version this reader does not know is refused before
// anything else, so that it fails on that and not on its first new field.
ReportVersion read_version(const std::string& schema) {
  if (schema == kReportSchema) return ReportVersion::kCurrent;
  if (schema == kReportSchemaV1) return ReportVersion::kBeforeRanks;
  fail_at("schema",
          std::string("expected \"") + kReportSchema + "\" or \"" + kReportSchemaV1 + "\", got \"" + schema + "\"");
}

}  // namespace detail

Report parse_report(const nlohmann::json& in) {
  detail::ObjectReader fields(in, "");
  const auto version = detail::read_version(fields.text("schema"));
  // Read into the current model, a version 1 file too: written again, it is a current report.
  Report report;
  report.environment = detail::read_environment(fields.required("environment"), "environment");
  report.config = run_config_from_json(fields.required("config"), "config");
  report.cells = detail::read_array<CellResult>(fields.required("cells"), "cells",
                                                [version](const nlohmann::json& cell, const std::string& path) {
                                                  return detail::read_cell(cell, path, version);
                                                });
  // Reports written before `explain` have no findings.
  if (const auto* explanation = fields.optional("explanation")) {
    report.explanation = detail::read_array<Finding>(*explanation, "explanation", detail::read_finding);
  }
  if (const auto* reruns = fields.optional("reruns")) {  // absent in older reports
    report.reruns = detail::read_array<WorkerRerun>(*reruns, "reruns", detail::read_rerun);
  }
  fields.finish();
  detail::require_unique_cells(report.cells);
  detail::check_rounds_agree(report.cells);
  require_derived_figures_match(report);
  return report;
}

void from_json(const nlohmann::json& in, SampleSummary& value) { value = detail::read_sample_summary(in, ""); }
void from_json(const nlohmann::json& in, Ratio& value) { value = detail::read_ratio(in, ""); }
void from_json(const nlohmann::json& in, ModeSettings& value) { value = detail::read_mode_settings(in, ""); }
void from_json(const nlohmann::json& in, Throughput& value) { value = detail::read_throughput(in, ""); }
void from_json(const nlohmann::json& in, Memory& value) { value = detail::read_memory(in, ""); }
void from_json(const nlohmann::json& in, ScalerTelemetry& value) { value = detail::read_scaler(in, ""); }
void from_json(const nlohmann::json& in, OpAudit& value) { value = detail::read_op_audit(in, ""); }
void from_json(const nlohmann::json& in, PrecisionAudit& value) { value = detail::read_precision(in, ""); }
void from_json(const nlohmann::json& in, TensorCoreMetric& value) { value = detail::read_tensor_core_metric(in, ""); }
void from_json(const nlohmann::json& in, TensorCoreUtilization& value) { value = detail::read_tensor_cores(in, ""); }
void from_json(const nlohmann::json& in, Numerics& value) { value = detail::read_numerics(in, ""); }
void from_json(const nlohmann::json& in, Divergence& value) { value = detail::read_divergence(in, ""); }
void from_json(const nlohmann::json& in, CellResult& value) { value = detail::read_cell(in, ""); }
void from_json(const nlohmann::json& in, RunConfig& value) { value = run_config_from_json(in, ""); }
void from_json(const nlohmann::json& in, Report& value) { value = parse_report(in); }

}  // namespace ampbench::reports
