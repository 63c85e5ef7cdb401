// The strict readers of the report's parts; `path` is where the value sits in the file, for errors.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "ampbench/reports/json_reader.h"
#include "ampbench/reports/report.h"

namespace ampbench::reports::detail {

// What a report's schema says its cells hold: kBeforeRanks ("ampbench.report/1") has no ranks and
// no data_parallel (its cells read as 1 rank); kCurrent (kReportSchema) requires ranks.
enum class ReportVersion { kBeforeRanks, kCurrent };

[[nodiscard]] SampleSummary read_sample_summary(const nlohmann::json& in, const std::string& path);
[[nodiscard]] Ratio read_ratio(const nlohmann::json& in, const std::string& path);
// A ratio's three fields from an object that holds more (the reader's finish() is the caller's).
[[nodiscard]] Ratio read_ratio_fields(ObjectReader& fields);
[[nodiscard]] ModeSettings read_mode_settings(const nlohmann::json& in, const std::string& path);
[[nodiscard]] Throughput read_throughput(const nlohmann::json& in, const std::string& path);
[[nodiscard]] Memory read_memory(const nlohmann::json& in, const std::string& path);
[[nodiscard]] ScalerTelemetry read_scaler(const nlohmann::json& in, const std::string& path);
[[nodiscard]] OpAudit read_op_audit(const nlohmann::json& in, const std::string& path);
[[nodiscard]] PrecisionAudit read_precision(const nlohmann::json& in, const std::string& path);
[[nodiscard]] TensorCoreMetric read_tensor_core_metric(const nlohmann::json& in, const std::string& path);
[[nodiscard]] TensorCoreUtilization read_tensor_cores(const nlohmann::json& in, const std::string& path);
// Also checks that every layer has one entry per observed step, each step within the pass's
// `steps`.
[[nodiscard]] LayerDiagnostics read_layer_diagnostics(const nlohmann::json& in, const std::string& path,
                                                      std::int64_t steps);
[[nodiscard]] Numerics read_numerics(const nlohmann::json& in, const std::string& path);
[[nodiscard]] Divergence read_divergence(const nlohmann::json& in, const std::string& path);
[[nodiscard]] RoundEstimate read_round_estimate(const nlohmann::json& in, const std::string& path);
[[nodiscard]] Finding read_finding(const nlohmann::json& in, const std::string& path);
[[nodiscard]] WorkerRerun read_rerun(const nlohmann::json& in, const std::string& path);
// Also checks that the rounds agree with the cell's steps: one round index per timed step, every
// round holding steps, per-round values positive. `device` names the probe of reports from before
// the probe was named.
[[nodiscard]] Rounds read_rounds(const nlohmann::json& in, const std::string& path, std::size_t timed_steps,
                                 const std::string& device);
[[nodiscard]] DataParallel read_data_parallel(const nlohmann::json& in, const std::string& path);
// Also checks that data_parallel sits on a cell of 2 or more ranks and, when the cell ran, has one
// all-reduce time per timed step and one median step time per rank.
[[nodiscard]] CellResult read_cell(const nlohmann::json& in, const std::string& path,
                                   ReportVersion version = ReportVersion::kCurrent);
[[nodiscard]] DeviceInfo read_device_info(const nlohmann::json& in, const std::string& path);
[[nodiscard]] GemmPeak read_gemm_peak(const nlohmann::json& in, const std::string& path);
[[nodiscard]] AllocatorRecord read_allocator_record(const nlohmann::json& in, const std::string& path);
[[nodiscard]] Environment read_environment(const nlohmann::json& in, const std::string& path);

}  // namespace ampbench::reports::detail
