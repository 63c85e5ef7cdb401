// The report as strict JSON: a double that is not finite is written as null (the readers map it
// back to NaN), never as the bare NaN or Infinity that JSON parsers reject.
#include <cmath>
#include <optional>

#include "ampbench/reports/report_json.h"
#include "io/device_state_json.h"
#include "io/json_number.h"

namespace ampbench::reports {
namespace {

using detail::json_number;
using detail::json_numbers;
using detail::json_optional;
nlohmann::json number(double value) { return json_number(value); }

// {"time cap": 3, "precision reached": 2}: the counts that "stop_reason"'s sentence describes.
nlohmann::json stop_reason_counts(const StopReasonCounts& counts) {
  auto out = nlohmann::json::object();
  for (const auto& [reason, count] : counts) out[std::string(to_string(reason))] = count;
  return out;
}

}  // namespace

void to_json(nlohmann::json& out, const SampleSummary& value) {
  out = {{"count", value.count},
         {"median", number(value.median)},
         {"ci_low", number(value.ci_low)},
         {"ci_high", number(value.ci_high)},
         {"p10", number(value.p10)},
         {"p90", number(value.p90)},
         {"mean", number(value.mean)},
         {"stddev", number(value.stddev)},
         {"relative_ci_half_width", number(value.relative_ci_half_width)}};
}

void to_json(nlohmann::json& out, const Ratio& value) {
  out = {{"value", number(value.value)}, {"ci_low", number(value.ci_low)}, {"ci_high", number(value.ci_high)}};
}

void to_json(nlohmann::json& out, const ModeSettings& value) {
  out = {{"compute_dtype", value.compute_dtype}, {"autocast", value.autocast},
         {"grad_scaler", value.grad_scaler},     {"tf32_matmul", value.tf32_matmul},
         {"tf32_cudnn", value.tf32_cudnn},       {"float32_matmul_precision", value.float32_matmul_precision}};
}

void to_json(nlohmann::json& out, const Throughput& value) {
  out = {{"step_time_s", value.step_time_s},
         {"samples_per_step", value.samples_per_step},
         {"tokens_per_step", value.tokens_per_step},
         {"samples_per_s", number(value.samples_per_s)},
         {"tokens_per_s", number(value.tokens_per_s)},
         {"flops_per_step", number(value.flops_per_step)},
         {"flops_source", value.flops_source ? std::string(to_string(*value.flops_source)) : std::string()},
         {"achieved_flops_per_s", number(value.achieved_flops_per_s)},
         {"fraction_of_peak", json_number(value.fraction_of_peak)},
         {"stop_reason", describe(value.stop_reasons)},
         {"stop_reasons", stop_reason_counts(value.stop_reasons)}};
  // Only a GPU cell on a chip the datasheet table knows has one; other reports stay as they were.
  if (value.mfu) out["mfu"] = number(*value.mfu);
}

void to_json(nlohmann::json& out, const Memory& value) {
  out = {{"peak_tensor_bytes", value.peak_tensor_bytes},
         {"peak_rss_bytes", value.peak_rss_bytes},
         {"cuda_peak_reserved_bytes", json_optional(value.cuda_peak_reserved_bytes)},
         {"cuda_total_bytes", json_optional(value.cuda_total_bytes)},
         {"cuda_free_bytes_at_start", json_optional(value.cuda_free_bytes_at_start)}};
}

void to_json(nlohmann::json& out, const ScalerTelemetry& value) {
  out = {{"scale", json_numbers(value.scale)}, {"skipped_steps", value.skipped_steps}};
}

void to_json(nlohmann::json& out, const OpAudit& value) {
  out = {{"op", value.op},
         {"input_dtype", value.input_dtype},
         {"output_dtype", value.output_dtype},
         {"calls", value.calls},
         {"flops", number(value.flops)}};
}

void to_json(nlohmann::json& out, const PrecisionAudit& value) {
  out = {{"low_precision_flop_share", number(value.low_precision_flop_share)}, {"ops", value.ops}};
}

void to_json(nlohmann::json& out, const TensorCoreMetric& value) {
  out = {{"name", value.name}, {"value", number(value.value)}, {"unit", value.unit}, {"method", value.method}};
}

void to_json(nlohmann::json& out, const TensorCoreUtilization& value) {
  out = {{"status", to_string(value.status)}, {"reason", value.reason}, {"metrics", value.metrics}};
}

void to_json(nlohmann::json& out, const ScaleCalibration& value) {
  out = {{"initial_scale", number(value.initial_scale)},
         {"start_scale", number(value.start_scale())},
         {"skipped_tries", value.skipped_tries},
         {"settled", value.settled}};
}

void to_json(nlohmann::json& out, const NumericsRun& value) {
  out = {{"train_loss", json_numbers(value.train_loss)},
         {"eval_loss", json_numbers(value.eval_loss)},
         {"wall_s", number(value.wall_s)}};
  if (value.layers) out["layers"] = *value.layers;  // absent, not null: a report without it reads as before #34
  if (value.scale_calibration) out["scale_calibration"] = *value.scale_calibration;
}

void to_json(nlohmann::json& out, const Numerics& value) {
  out = {
      {"steps", value.steps}, {"eval_batches", value.eval_batches},  {"eval_steps", value.eval_steps},
      {"run", value.run},     {"floor", json_optional(value.floor)}, {"floor_perturbation", value.floor_perturbation},
      {"error", value.error}};
}

void to_json(nlohmann::json& out, const Divergence& value) {
  out = {{"reference_mode", value.reference_mode},
         {"steps", value.steps},
         {"final_evaluations", value.final_evaluations},
         {"final_relative_difference", number(value.final_relative_difference)},
         {"final_floor", number(value.final_floor)},
         {"max_relative_difference", number(value.max_relative_difference)},
         {"ratio_to_floor", number(value.ratio_to_floor)},
         {"floor_multiple", number(value.floor_multiple)},
         {"verdict", to_string(value.verdict)}};
}

void to_json(nlohmann::json& out, const RoundEstimate& value) {
  out = {{"rounds", value.rounds},
         {"value", number(value.value)},
         {"ci_low", number(value.ci_low)},
         {"ci_high", number(value.ci_high)},
         {"relative_ci_half_width", number(value.relative_ci_half_width)}};
}

void to_json(nlohmann::json& out, const Rounds& value) {
  out = {{"interleaved_modes", value.interleaved_modes},
         {"steps_per_round", value.steps_per_round},
         {"untimed_steps_per_block", value.untimed_steps_per_block},
         {"step_round", value.step_round},
         {"step_time_s", json_numbers(value.step_time_s)},
         {"probe_s", json_numbers(value.probe_s)},
         {"probe", value.probe},
         {"round_replicate", value.round_replicate},
         {"step_time", value.step_time}};
  if (value.slow_machine_factor) {
    out["slow_machine_factor"] = number(*value.slow_machine_factor);
    out["slow_machine_rounds"] = value.slow_machine_rounds;
  }
  if (value.device) out["device"] = detail::device_rounds_json(*value.device);
}

void to_json(nlohmann::json& out, const TimeBreakdown& value) {
  auto categories = nlohmann::json::array();
  for (const auto& category : value.categories)
    categories.push_back(
        {{"name", to_string(category.category)}, {"seconds_per_step", number(category.seconds_per_step)}});
  out = {{"steps", value.steps},
         {"step_time_s", number(value.step_time_s)},
         {"categories", categories},
         {"unattributed_s", number(value.unattributed_s)},
         {"method", value.method},
         {"unaligned_matmul_s", number(value.unaligned_matmul_s)},
         {"unaligned_matmul_ops", value.unaligned_matmul_ops}};
  auto top_ops = nlohmann::json::array();
  for (const auto& op : value.top_ops)
    top_ops.push_back({{"op", op.op}, {"dtype", op.dtype}, {"seconds_per_step", number(op.seconds_per_step)}});
  out["top_ops"] = top_ops;
}

void to_json(nlohmann::json& out, const DataParallel& value) {
  out = {{"backend", value.backend},
         {"grad_compression", std::string(to_string(value.grad_compression))},
         {"gradient_sync", value.gradient_sync},
         {"buckets", value.buckets},
         {"allreduce_times_s", json_numbers(value.allreduce_times_s)},
         {"allreduce_time_s", value.allreduce_time_s},
         {"allreduce_bytes_per_step", number(value.allreduce_bytes_per_step)},
         {"rank_median_step_time_s", json_numbers(value.rank_median_step_time_s)},
         {"scaling_efficiency", json_optional(value.scaling_efficiency)},
         {"inf_checks_agreed", value.inf_checks_agreed}};
}

void to_json(nlohmann::json& out, const Finding& value) {
  auto evidence = nlohmann::json::object();
  for (const auto& [name, figure] : value.evidence) evidence[name] = number(figure);
  out = {{"id", value.id}, {"cell", value.cell}, {"sentence", value.sentence}, {"evidence", evidence}};
}

void to_json(nlohmann::json& out, const PageFaults& value) { out = {{"minor", value.minor}, {"major", value.major}}; }

void to_json(nlohmann::json& out, const WorkerRerun& value) {
  out = {{"workload", value.workload}, {"ranks", value.ranks}, {"replicate", value.replicate},
         {"reason", value.reason},     {"modes", value.modes}, {"rerun_modes", value.rerun_modes}};
}

void to_json(nlohmann::json& out, const CellResult& value) {
  out = {{"workload", value.workload},
         {"mode", value.mode},
         {"device", value.device},
         {"preset", value.preset},
         {"ranks", value.ranks},
         {"status", std::string(to_string(value.status))},
         {"error", value.error},
         {"settings", value.settings},
         {"warmup_steps", value.warmup_steps},
         {"step_times_s", json_numbers(value.step_times_s)},
         {"host_step_times_s", json_numbers(value.host_step_times_s)},
         {"losses", json_numbers(value.losses)},
         {"grad_norms", json_numbers(value.grad_norms)},
         {"throughput", value.throughput},
         {"memory", value.memory},
         {"scaler", json_optional(value.scaler)},
         {"precision", json_optional(value.precision)},
         {"tensor_cores", value.tensor_cores},
         {"numerics", json_optional(value.numerics)},
         {"divergence", json_optional(value.divergence)},
         {"rounds", json_optional(value.rounds)},
         {"speedup_vs_fp32", json_optional(value.speedup_vs_fp32)},
         {"memory_ratio_vs_fp32", json_optional(value.memory_ratio_vs_fp32)},
         {"breakdown", json_optional(value.breakdown)},
         {"data_parallel", json_optional(value.data_parallel)},
         {"page_faults", json_optional(value.page_faults)}};
  // Only where energy was measured: reports of other runs keep their bytes.
  if (value.energy) out["energy"] = detail::energy_json(*value.energy);
  if (value.energy_ratio_vs_fp32) out["energy_ratio_vs_fp32"] = *value.energy_ratio_vs_fp32;
}

void to_json(nlohmann::json& out, const RunConfig& value) { out = run_config_to_json(value); }

void to_json(nlohmann::json& out, const Report& value) {
  out = {{"schema", value.schema}, {"environment", value.environment}, {"config", value.config},
         {"cells", value.cells},   {"explanation", value.explanation}, {"reruns", value.reruns}};
}

}  // namespace ampbench::reports
