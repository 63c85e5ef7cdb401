// The report's root and environment read strictly, and the from_json entry points over the
// readers in report_json_read.cpp.
#include <algorithm>
#include <limits>
#include <map>
#include <string>

#include "ampbench/reports/allocator_policy.h"
#include "ampbench/reports/compare.h"
#include "ampbench/reports/derived_figures.h"
#include "ampbench/reports/json_reader.h"
#include "ampbench/reports/report_json.h"
#include "report_json_read.h"

namespace ampbench::reports {
namespace detail {

DeviceInfo read_device_info(const nlohmann::json& in, const std::string& path) {
  ObjectReader fields(in, path);
  DeviceInfo value;
  value.name = fields.text("name");
  value.model = fields.text("model");
  value.compute_capability = fields.text("compute_capability");
  value.total_memory_bytes = fields.integer("total_memory_bytes");
  value.multiprocessors = static_cast<int>(fields.integer_in("multiprocessors", 0, std::numeric_limits<int>::max()));
  // Written for GPUs only, and not by reports older than it.
  if (const auto* mode = fields.optional("compute_mode"))
    value.compute_mode = read_string(*mode, fields.path_of("compute_mode"));
  fields.finish();
  return value;
}

GemmPeak read_gemm_peak(const nlohmann::json& in, const std::string& path) {
  ObjectReader fields(in, path);
  GemmPeak value;
  value.device = fields.text("device");
  value.dtype = fields.text("dtype");
  value.status = fields.named("status", kMeasurementStatuses);
  value.reason = fields.text("reason");
  value.flops_per_s = fields.number_or_null("flops_per_s");
  value.matrix_size = fields.integer("matrix_size");
  value.method = fields.text("method");
  if (const auto* ratio = fields.optional("versus_float32")) {  // absent in older reports
    ObjectReader ratio_fields(*ratio, fields.path_of("versus_float32"));
    GemmSpeedRatio speed{read_ratio_fields(ratio_fields), ratio_fields.integer_in("rounds", 1, 1000000)};
    if (ratio_fields.optional("matrix_size") != nullptr) {  // absent where no size was shared, and before it was kept
      speed.matrix_size = ratio_fields.integer_in("matrix_size", 1, std::numeric_limits<std::int64_t>::max());
    }
    ratio_fields.finish();
    value.versus_float32 = speed;
  }
  fields.finish();
  return value;
}

AllocatorRecord read_allocator_record(const nlohmann::json& in, const std::string& path) {
  ObjectReader fields(in, path);
  AllocatorRecord value;
  value.policy = fields.text("policy");
  if (!parse_allocator_policy(value.policy)) {
    fail_at(fields.path_of("policy"), "'" + value.policy + "' is not " + allocator_policy_names());
  }
  value.library = fields.text("library");
  value.version = fields.text("version");
  value.settings = fields.text("settings");
  value.page_fault_s = read_finite_number(fields.required("page_fault_s"), fields.path_of("page_fault_s"));
  if (value.page_fault_s < 0.0) fail_at(fields.path_of("page_fault_s"), "must not be negative");
  fields.finish();
  return value;
}

Environment read_environment(const nlohmann::json& in, const std::string& path) {
  ObjectReader fields(in, path);
  Environment value;
  for (auto [key, target] : {std::pair{"ampbench_version", &value.ampbench_version},
                             {"git_revision", &value.git_revision},
                             {"timestamp_utc", &value.timestamp_utc},
                             {"hostname", &value.hostname},
                             {"cpu_model", &value.cpu_model},
                             {"cpu_capability", &value.cpu_capability},
                             {"torch_version", &value.torch_version},
                             {"torch_cuda_version", &value.torch_cuda_version},
                             {"cudnn_version", &value.cudnn_version},
                             {"cupti_version", &value.cupti_version},
                             {"cuda_status", &value.cuda_status}}) {
    *target = fields.text(key);
  }
  value.threads = static_cast<int>(fields.integer_in("threads", 0, std::numeric_limits<int>::max()));
  value.devices = read_array<DeviceInfo>(fields.required("devices"), fields.path_of("devices"), read_device_info);
  // Reports written before the roofline have no peaks; they read as "none measured".
  if (const auto* peaks = fields.optional("gemm_peaks")) {
    value.gemm_peaks = read_array<GemmPeak>(*peaks, fields.path_of("gemm_peaks"), read_gemm_peak);
  }
  // Reports written before it was recorded have no LibTorch folder.
  if (const auto* folder = fields.optional("torch_library")) {
    value.torch_library = read_string(*folder, fields.path_of("torch_library"));
  }
  // Reports written before `explain` have no ISA flags.
  if (const auto* flags = fields.optional("cpu_flags")) {
    value.cpu_flags = read_array<std::string>(*flags, fields.path_of("cpu_flags"), read_string);
  }
  if (const auto* note = fields.optional("gpu_verification")) {
    value.gpu_verification = read_string(*note, fields.path_of("gpu_verification"));
  }
  // Reports written before the allocator was a setting have no record.
  if (const auto* allocator = fields.optional("allocator")) {
    value.allocator = read_allocator_record(*allocator, fields.path_of("allocator"));
  }
  fields.finish();
  return value;
}

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
