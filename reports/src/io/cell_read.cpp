// The report read back strictly: every field present, of the right type, nothing unknown; errors
// name the field's path ("cells[2].throughput.step_time_s.median: expected a number, got string").
#include <algorithm>
#include <limits>
#include <string>

#include "ampbench/reports/json_reader.h"
#include "ampbench/reports/report_json.h"
#include "io/device_state_json.h"
#include "io/report_read.h"

namespace ampbench::reports::detail {
namespace {

using nlohmann::json;

std::vector<double> numbers_or_null(const json& value, const std::string& path) {
  return read_array<double>(value, path, read_number_or_null);
}

// Per-step times: positive, finite, at most kMaxStepSamplesPerCell of them.
std::vector<double> step_times(const json& value, const std::string& path) {
  return read_array<double>(value, path, read_positive_seconds, kMaxStepSamplesPerCell);
}

// A time that may be 0 (an all-reduce too short for the clock), never negative or non-finite.
double read_non_negative_seconds(const json& value, const std::string& path) {
  const double seconds = read_finite_number(value, path);
  if (seconds < 0.0) fail_at(path, "expected a time in seconds of 0 or more, got " + value.dump());
  return seconds;
}

constexpr std::int64_t kMaxInt = std::numeric_limits<int>::max();
constexpr std::int64_t kMaxInt64 = std::numeric_limits<std::int64_t>::max();

// What check and the renderers rely on in a cell that ran: samples to judge, and a summary of
// those samples (the count is checked; the statistics are not recomputed, since compare and check
// recompute them from the samples and never read the stored summary).
void require_judgeable(const CellResult& value, const std::string& path) {
  if (value.status != CellStatus::kOk) return;
  const std::string prefix = path.empty() ? "" : path + ".";
  if (value.step_times_s.empty()) fail_at(prefix + "step_times_s", "a cell with status \"ok\" needs step times");
  const auto count = value.throughput.step_time_s.count;
  if (count != static_cast<std::int64_t>(value.step_times_s.size())) {
    fail_at(prefix + "throughput.step_time_s.count", std::to_string(count) + " does not match the " +
                                                         std::to_string(value.step_times_s.size()) +
                                                         " values of step_times_s");
  }
}

// Data parallel belongs to cells of several ranks; a cell that ran has one all-reduce time per
// timed step and one median step time per rank (none in one rank's own cell, on its way from its
// worker to be merged with the others').
void require_data_parallel_fits(const CellResult& value, const std::string& path) {
  if (!value.data_parallel) return;
  const std::string at = (path.empty() ? "" : path + ".") + "data_parallel";
  if (value.ranks == 1) fail_at(at, "present on a cell of 1 rank (only cells of 2 or more ranks have it)");
  if (value.status != CellStatus::kOk) return;
  const auto& parallel = *value.data_parallel;
  if (parallel.allreduce_times_s.size() != value.step_times_s.size()) {
    fail_at(at + ".allreduce_times_s", std::to_string(parallel.allreduce_times_s.size()) + " values for " +
                                           std::to_string(value.step_times_s.size()) + " timed steps");
  }
  if (!parallel.rank_median_step_time_s.empty() &&
      static_cast<std::int64_t>(parallel.rank_median_step_time_s.size()) != value.ranks) {
    fail_at(at + ".rank_median_step_time_s", std::to_string(parallel.rank_median_step_time_s.size()) + " values for " +
                                                 std::to_string(value.ranks) + " ranks");
  }
}

// The JSON edge of CellStatus: its names come from to_string, so they are written once.
CellStatus read_cell_status(ObjectReader& fields) {
  const auto text = fields.either("status", to_string(CellStatus::kOk), to_string(CellStatus::kFailed));
  return text == to_string(CellStatus::kOk) ? CellStatus::kOk : CellStatus::kFailed;
}

}  // namespace

SampleSummary read_sample_summary(const json& in, const std::string& path) {
  ObjectReader fields(in, path);
  SampleSummary value;
  value.count = fields.integer_in("count", 0, kMaxInt64);
  value.median = fields.number_or_null("median");
  value.ci_low = fields.number_or_null("ci_low");
  value.ci_high = fields.number_or_null("ci_high");
  value.p10 = fields.number_or_null("p10");
  value.p90 = fields.number_or_null("p90");
  value.mean = fields.number_or_null("mean");
  value.stddev = fields.number_or_null("stddev");
  value.relative_ci_half_width = fields.number_or_null("relative_ci_half_width");
  fields.finish();
  return value;
}

Ratio read_ratio_fields(ObjectReader& fields) {
  Ratio value;
  value.value = fields.number_or_null("value");
  value.ci_low = fields.number_or_null("ci_low");
  value.ci_high = fields.number_or_null("ci_high");
  return value;
}

Ratio read_ratio(const json& in, const std::string& path) {
  ObjectReader fields(in, path);
  const auto value = read_ratio_fields(fields);
  fields.finish();
  return value;
}

ModeSettings read_mode_settings(const json& in, const std::string& path) {
  ObjectReader fields(in, path);
  ModeSettings value;
  value.compute_dtype = fields.text("compute_dtype");
  value.autocast = fields.flag("autocast");
  value.grad_scaler = fields.flag("grad_scaler");
  value.tf32_matmul = fields.flag("tf32_matmul");
  value.tf32_cudnn = fields.flag("tf32_cudnn");
  value.float32_matmul_precision = fields.text("float32_matmul_precision");
  fields.finish();
  return value;
}

// "stop_reason" is a sentence; "stop_reasons" (reports since the counts were stored) the counts it
// must describe. Older reports have the sentence alone, which then gives the counts.
StopReasonCounts read_stop_reasons(ObjectReader& fields) {
  const auto sentence = fields.text("stop_reason");
  const auto* stored = fields.optional("stop_reasons");
  if (stored == nullptr) {
    const auto described = stop_reasons_described(sentence);
    if (!described) fail_at(fields.path_of("stop_reason"), "\"" + sentence + "\" names no stop reason and count");
    return *described;
  }
  const auto path = fields.path_of("stop_reasons");
  if (!stored->is_object()) fail_at(path, "expected an object of reasons and counts, got " + stored->dump());
  StopReasonCounts counts;
  for (const auto& [name, count] : stored->items()) {
    const auto reason = stop_reason_named(name);
    if (!reason)
      fail_at(path + "." + name, "not a stop reason (precision reached, step cap, time cap, every mode failed)");
    counts[*reason] = read_integer_in(count, path + "." + name, 1, std::numeric_limits<std::int64_t>::max());
  }
  if (describe(counts) != sentence) {
    fail_at(fields.path_of("stop_reason"),
            "\"" + sentence + "\" does not say what stop_reasons count (\"" + describe(counts) + "\")");
  }
  return counts;
}

Throughput read_throughput(const json& in, const std::string& path) {
  ObjectReader fields(in, path);
  Throughput value;
  value.step_time_s = read_sample_summary(fields.required("step_time_s"), fields.path_of("step_time_s"));
  value.samples_per_step = fields.integer("samples_per_step");
  value.tokens_per_step = fields.integer("tokens_per_step");
  value.samples_per_s = fields.number_or_null("samples_per_s");
  value.tokens_per_s = fields.number_or_null("tokens_per_s");
  value.flops_per_step = fields.number_or_null("flops_per_step");
  // Absent in reports written before user workloads; "" where no FLOPs were found (a failed cell).
  if (const auto* source = fields.optional("flops_source"); source && *source != "")
    value.flops_source = fields.named("flops_source", kFlopSources);
  value.achieved_flops_per_s = fields.number_or_null("achieved_flops_per_s");
  if (const auto* peak = fields.optional("fraction_of_peak")) {
    value.fraction_of_peak = read_number_or_null(*peak, fields.path_of("fraction_of_peak"));
  }
  if (const auto* mfu = fields.optional("mfu")) value.mfu = read_number_or_null(*mfu, fields.path_of("mfu"));
  value.stop_reasons = read_stop_reasons(fields);
  fields.finish();
  return value;
}

Memory read_memory(const json& in, const std::string& path) {
  ObjectReader fields(in, path);
  Memory value;
  value.peak_tensor_bytes = fields.integer_in("peak_tensor_bytes", 0, kMaxInt64);
  value.peak_rss_bytes = fields.integer_in("peak_rss_bytes", 0, kMaxInt64);
  const auto optional_integer = [&fields](std::string_view key) -> std::optional<std::int64_t> {
    const auto* field = fields.optional(key);
    if (field == nullptr) return std::nullopt;
    return read_integer_in(*field, fields.path_of(key), 0, kMaxInt64);
  };
  value.cuda_peak_reserved_bytes = optional_integer("cuda_peak_reserved_bytes");
  value.cuda_total_bytes = optional_integer("cuda_total_bytes");
  value.cuda_free_bytes_at_start = optional_integer("cuda_free_bytes_at_start");
  fields.finish();
  return value;
}

ScalerTelemetry read_scaler(const json& in, const std::string& path) {
  ObjectReader fields(in, path);
  ScalerTelemetry value;
  value.scale = numbers_or_null(fields.required("scale"), fields.path_of("scale"));
  value.skipped_steps =
      read_array<std::int64_t>(fields.required("skipped_steps"), fields.path_of("skipped_steps"), read_integer);
  fields.finish();
  return value;
}

OpAudit read_op_audit(const json& in, const std::string& path) {
  ObjectReader fields(in, path);
  OpAudit value;
  value.op = fields.text("op");
  value.input_dtype = fields.text("input_dtype");
  value.output_dtype = fields.text("output_dtype");
  value.calls = fields.integer("calls");
  value.flops = fields.number_or_null("flops");
  fields.finish();
  return value;
}

PrecisionAudit read_precision(const json& in, const std::string& path) {
  ObjectReader fields(in, path);
  PrecisionAudit value;
  value.low_precision_flop_share = fields.number_or_null("low_precision_flop_share");
  value.ops = read_array<OpAudit>(fields.required("ops"), fields.path_of("ops"), read_op_audit);
  fields.finish();
  return value;
}

TensorCoreMetric read_tensor_core_metric(const json& in, const std::string& path) {
  ObjectReader fields(in, path);
  TensorCoreMetric value;
  value.name = fields.text("name");
  value.value = fields.number_or_null("value");
  value.unit = fields.text("unit");
  value.method = fields.text("method");
  fields.finish();
  return value;
}

TensorCoreUtilization read_tensor_cores(const json& in, const std::string& path) {
  ObjectReader fields(in, path);
  TensorCoreUtilization value;
  value.status = fields.named("status", kMeasurementStatuses);
  value.reason = fields.text("reason");
  value.metrics =
      read_array<TensorCoreMetric>(fields.required("metrics"), fields.path_of("metrics"), read_tensor_core_metric);
  fields.finish();
  return value;
}

// Scales are finite and positive; the stated start (for readers of the JSON) must be the one the
// tries give (ScaleCalibration::start_scale).
ScaleCalibration read_scale_calibration(const json& in, const std::string& path) {
  ObjectReader fields(in, path);
  ScaleCalibration value;
  value.initial_scale = read_finite_number(fields.required("initial_scale"), fields.path_of("initial_scale"));
  const double start_scale = read_finite_number(fields.required("start_scale"), fields.path_of("start_scale"));
  value.skipped_tries = fields.integer_in("skipped_tries", 0, 64);
  value.settled = fields.flag("settled");
  if (!(value.initial_scale > 0.0)) fail_at(fields.path_of("initial_scale"), "must be positive");
  if (start_scale != value.start_scale()) {
    fail_at(fields.path_of("start_scale"),
            "must be initial_scale halved once per skipped try when settled, "
            "else initial_scale");
  }
  fields.finish();
  return value;
}

// A pass that failed (`failed`) may stop before its last evaluation; one that ran has them all.
NumericsRun read_numerics_run(const json& in, const std::string& path, std::size_t evaluations, std::int64_t steps,
                              bool failed) {
  ObjectReader fields(in, path);
  NumericsRun value;
  value.train_loss = numbers_or_null(fields.required("train_loss"), fields.path_of("train_loss"));
  value.eval_loss = numbers_or_null(fields.required("eval_loss"), fields.path_of("eval_loss"));
  if (failed ? value.eval_loss.size() > evaluations : value.eval_loss.size() != evaluations) {
    fail_at(fields.path_of("eval_loss"), std::to_string(value.eval_loss.size()) + " values for " +
                                             std::to_string(evaluations) + " evaluations (eval_steps)");
  }
  value.wall_s = fields.number_or_null("wall_s");
  if (const auto* layers = fields.optional("layers"))  // absent before issue #34
    value.layers = read_layer_diagnostics(*layers, fields.path_of("layers"), steps);
  if (const auto* calibration = fields.optional("scale_calibration"))  // absent in reports before it
    value.scale_calibration = read_scale_calibration(*calibration, fields.path_of("scale_calibration"));
  fields.finish();
  return value;
}

// Evaluations at steps 0 <= s_0 < s_1 < ... <= steps: the curves are drawn and compared by them.
void check_eval_steps(const std::vector<std::int64_t>& eval_steps, std::int64_t steps, const std::string& path) {
  for (std::size_t i = 0; i < eval_steps.size(); ++i) {
    const bool ordered = i == 0 ? eval_steps[i] >= 0 : eval_steps[i] > eval_steps[i - 1];
    if (!ordered || eval_steps[i] > steps) {
      fail_at(path + "[" + std::to_string(i) + "]", "step " + std::to_string(eval_steps[i]) +
                                                        " is not after the previous evaluation and within the " +
                                                        std::to_string(steps) + " steps");
    }
  }
}

Numerics read_numerics(const json& in, const std::string& path) {
  ObjectReader fields(in, path);
  Numerics value;
  value.steps = fields.integer_in("steps", 0, kMaxStepsPerCell);
  value.eval_batches = fields.integer_in("eval_batches", 0, kMaxStepsPerCell);
  value.eval_steps =
      read_array<std::int64_t>(fields.required("eval_steps"), fields.path_of("eval_steps"), read_integer);
  check_eval_steps(value.eval_steps, value.steps, fields.path_of("eval_steps"));
  value.error = fields.text("error");
  const bool failed = !value.error.empty();
  value.run =
      read_numerics_run(fields.required("run"), fields.path_of("run"), value.eval_steps.size(), value.steps, failed);
  if (const auto* floor = fields.optional("floor"))
    value.floor = read_numerics_run(*floor, fields.path_of("floor"), value.eval_steps.size(), value.steps, failed);
  value.floor_perturbation = fields.text("floor_perturbation");
  fields.finish();
  return value;
}

Divergence read_divergence(const json& in, const std::string& path) {
  ObjectReader fields(in, path);
  Divergence value;
  value.reference_mode = fields.text("reference_mode");
  value.steps = fields.integer_in("steps", 0, kMaxStepsPerCell);
  value.final_evaluations = fields.integer_in("final_evaluations", 0, kMaxStepsPerCell);
  value.final_relative_difference = fields.number_or_null("final_relative_difference");
  value.final_floor = fields.number_or_null("final_floor");
  value.max_relative_difference = fields.number_or_null("max_relative_difference");
  value.ratio_to_floor = fields.number_or_null("ratio_to_floor");
  value.floor_multiple = fields.number_or_null("floor_multiple");
  // check decides on the verdict: an unknown one must not read as "not worse".
  value.verdict = fields.named("verdict", kDivergenceVerdicts);
  fields.finish();
  return value;
}

// Step times feed every statistic, so they must be positive and finite; losses and scales may be
// null (NaN).
void read_samples(ObjectReader& fields, CellResult& value) {
  value.step_times_s = step_times(fields.required("step_times_s"), fields.path_of("step_times_s"));
  value.host_step_times_s = step_times(fields.required("host_step_times_s"), fields.path_of("host_step_times_s"));
  value.losses = numbers_or_null(fields.required("losses"), fields.path_of("losses"));
  if (const auto* norms = fields.optional("grad_norms"))
    value.grad_norms = numbers_or_null(*norms, fields.path_of("grad_norms"));
}

RoundEstimate read_round_estimate(const json& in, const std::string& path) {
  ObjectReader fields(in, path);
  RoundEstimate value;
  value.rounds = fields.integer("rounds");
  value.value = fields.number_or_null("value");
  value.ci_low = fields.number_or_null("ci_low");
  value.ci_high = fields.number_or_null("ci_high");
  value.relative_ci_half_width = fields.number_or_null("relative_ci_half_width");
  fields.finish();
  return value;
}

// One replicate index per round, never negative, decreasing or skipping one: each worker
// process's rounds are contiguous (a worker's own result starts at its index).
void check_round_replicates(const std::vector<std::int64_t>& replicates, std::size_t rounds, const std::string& path) {
  if (replicates.empty()) return;
  if (replicates.size() != rounds) {
    fail_at(path, std::to_string(replicates.size()) + " values for " + std::to_string(rounds) + " rounds");
  }
  for (std::size_t round = 0; round < rounds; ++round) {
    const auto replicate = replicates[round];
    if (round == 0 ? replicate < 0 : replicate != replicates[round - 1] && replicate != replicates[round - 1] + 1) {
      fail_at(
          path + "[" + std::to_string(round) + "]",
          "replicate " + std::to_string(replicate) +
              (round == 0 ? " is negative"
                          : " after " + std::to_string(replicates[round - 1]) + " (expected the same or the next)"));
    }
  }
}

// Reports from before the probe was named timed a float32 at::mm, 256x256 on a CPU.
std::string probe_before_names(const std::string& device) {
  return device == "cpu" ? kCpuMatmulProbe : kGpuMatmulProbe;
}

Rounds read_rounds(const json& in, const std::string& path, std::size_t timed_steps, const std::string& device) {
  ObjectReader fields(in, path);
  Rounds value;
  value.interleaved_modes =
      read_array<std::string>(fields.required("interleaved_modes"), fields.path_of("interleaved_modes"), read_string);
  value.steps_per_round = fields.integer("steps_per_round");
  if (value.steps_per_round < 1) fail_at(fields.path_of("steps_per_round"), "must be at least 1");
  if (const auto* untimed = fields.optional("untimed_steps_per_block")) {  // absent in older reports: one
    value.untimed_steps_per_block = read_integer_in(*untimed, fields.path_of("untimed_steps_per_block"), 1, kMaxRounds);
  }
  value.step_round =
      read_array<std::int64_t>(fields.required("step_round"), fields.path_of("step_round"), read_integer);
  value.step_time_s = step_times(fields.required("step_time_s"), fields.path_of("step_time_s"));
  value.probe_s = step_times(fields.required("probe_s"), fields.path_of("probe_s"));
  const auto* probe = fields.optional("probe");
  value.probe = probe != nullptr ? read_string(*probe, fields.path_of("probe")) : probe_before_names(device);
  if (const auto* replicates = fields.optional("round_replicate")) {
    value.round_replicate = read_array<std::int64_t>(*replicates, fields.path_of("round_replicate"), read_integer);
  }
  value.step_time = read_round_estimate(fields.required("step_time"), fields.path_of("step_time"));
  if (const auto* factor = fields.optional("slow_machine_factor")) {  // absent in older reports
    value.slow_machine_factor = read_finite_number(*factor, fields.path_of("slow_machine_factor"));
    if (*value.slow_machine_factor < 1.0) fail_at(fields.path_of("slow_machine_factor"), "must be at least 1");
    value.slow_machine_rounds = fields.integer_in("slow_machine_rounds", 0, kMaxRounds);
  }
  if (const auto* device_state = fields.optional("device")) {  // GPU cells with NVML
    value.device = read_device_rounds(*device_state, fields.path_of("device"), value.step_time_s.size());
  }
  fields.finish();
  const auto rounds = value.step_time_s.size();
  if (value.step_round.size() != timed_steps) {
    fail_at(fields.path_of("step_round"), std::to_string(value.step_round.size()) + " round indices for " +
                                              std::to_string(timed_steps) + " timed steps");
  }
  if (!value.probe_s.empty() && value.probe_s.size() != rounds) {
    fail_at(fields.path_of("probe_s"),
            std::to_string(value.probe_s.size()) + " values for " + std::to_string(rounds) + " rounds");
  }
  check_round_replicates(value.round_replicate, rounds, fields.path_of("round_replicate"));
  std::vector<bool> has_steps(rounds, false);
  for (std::size_t i = 0; i < value.step_round.size(); ++i) {
    const auto round = value.step_round[i];
    if (round < 0 || static_cast<std::size_t>(round) >= rounds) {
      fail_at(fields.path_of("step_round") + "[" + std::to_string(i) + "]",
              "round " + std::to_string(round) + " outside the " + std::to_string(rounds) + " rounds");
    }
    has_steps[static_cast<std::size_t>(round)] = true;
  }
  for (std::size_t round = 0; round < rounds; ++round) {
    if (!has_steps[round]) fail_at(fields.path_of("step_round"), "round " + std::to_string(round) + " has no step");
  }
  return value;
}

TimeBreakdown read_breakdown(const json& in, const std::string& path) {
  ObjectReader fields(in, path);
  TimeBreakdown value;
  value.steps = fields.integer_in("steps", 1, kMaxRounds);
  value.step_time_s = read_finite_number(fields.required("step_time_s"), fields.path_of("step_time_s"));
  value.categories = read_array<TimeCategory>(
      fields.required("categories"), fields.path_of("categories"), [](const json& item, const std::string& at) {
        ObjectReader category(item, at);
        const auto name = category.text("name");
        const auto named = op_category_named(name);
        if (!named) fail_at(category.path_of("name"), "expected " + op_category_names() + ", got \"" + name + "\"");
        TimeCategory read{
            *named, read_finite_number(category.required("seconds_per_step"), category.path_of("seconds_per_step"))};
        category.finish();
        return read;
      });
  value.unattributed_s = read_finite_number(fields.required("unattributed_s"), fields.path_of("unattributed_s"));
  value.method = fields.text("method");
  value.unaligned_matmul_s =
      read_finite_number(fields.required("unaligned_matmul_s"), fields.path_of("unaligned_matmul_s"));
  value.unaligned_matmul_ops = read_array<std::string>(fields.required("unaligned_matmul_ops"),
                                                       fields.path_of("unaligned_matmul_ops"), read_string);
  if (const auto* top = fields.optional("top_ops")) {  // absent in older reports
    value.top_ops = read_array<OpTime>(*top, fields.path_of("top_ops"), [](const json& item, const std::string& at) {
      ObjectReader op(item, at);
      OpTime read{op.text("op"), op.text("dtype"),
                  read_finite_number(op.required("seconds_per_step"), op.path_of("seconds_per_step"))};
      op.finish();
      return read;
    });
  }
  fields.finish();
  return value;
}

DataParallel read_data_parallel(const json& in, const std::string& path) {
  ObjectReader fields(in, path);
  DataParallel value;
  value.backend = fields.text("backend");
  const auto compression = fields.text("grad_compression");
  const auto named = grad_compression_named(compression);
  if (!named)
    fail_at(fields.path_of("grad_compression"),
            "expected " + grad_compression_names() + ", got \"" + compression + "\"");
  value.grad_compression = *named;
  value.gradient_sync = fields.text("gradient_sync");
  value.buckets = fields.integer_in("buckets", 0, kMaxInt);
  value.allreduce_times_s =
      read_array<double>(fields.required("allreduce_times_s"), fields.path_of("allreduce_times_s"),
                         read_non_negative_seconds, kMaxStepSamplesPerCell);
  value.allreduce_time_s = read_sample_summary(fields.required("allreduce_time_s"), fields.path_of("allreduce_time_s"));
  value.allreduce_bytes_per_step =
      read_finite_number(fields.required("allreduce_bytes_per_step"), fields.path_of("allreduce_bytes_per_step"));
  if (value.allreduce_bytes_per_step < 0.0) fail_at(fields.path_of("allreduce_bytes_per_step"), "must not be negative");
  value.rank_median_step_time_s =
      step_times(fields.required("rank_median_step_time_s"), fields.path_of("rank_median_step_time_s"));
  if (const auto* efficiency = fields.optional("scaling_efficiency"))
    value.scaling_efficiency = read_ratio(*efficiency, fields.path_of("scaling_efficiency"));
  value.inf_checks_agreed = fields.flag("inf_checks_agreed");
  fields.finish();
  const auto count = static_cast<std::int64_t>(value.allreduce_times_s.size());
  if (value.allreduce_time_s.count != count) {
    fail_at(fields.path_of("allreduce_time_s.count"), std::to_string(value.allreduce_time_s.count) +
                                                          " does not match the " + std::to_string(count) +
                                                          " values of allreduce_times_s");
  }
  return value;
}

PageFaults read_page_faults(const json& in, const std::string& path) {
  ObjectReader fields(in, path);
  PageFaults value;
  const auto counts = [&](std::string_view key) {
    return read_array<std::int64_t>(
        fields.required(key), fields.path_of(key),
        [](const json& count, const std::string& at) { return read_integer_in(count, at, 0, kMaxInt64); },
        kMaxStepSamplesPerCell);
  };
  value.minor = counts("minor");
  value.major = counts("major");
  fields.finish();
  return value;
}

// One count per timed step, like the step times they were read around.
void require_page_faults_fit(const CellResult& value, const std::string& path) {
  if (!value.page_faults || value.status != CellStatus::kOk) return;
  const std::string at = (path.empty() ? "" : path + ".") + "page_faults.";
  for (const auto& [key, counts] :
       {std::pair{"minor", &value.page_faults->minor}, {"major", &value.page_faults->major}}) {
    if (counts->size() != value.step_times_s.size()) {
      fail_at(at + key, std::to_string(counts->size()) + " values for " + std::to_string(value.step_times_s.size()) +
                            " timed steps");
    }
  }
}

WorkerRerun read_rerun(const json& in, const std::string& path) {
  ObjectReader fields(in, path);
  WorkerRerun value;
  value.workload = fields.text("workload");
  value.ranks = fields.integer_in("ranks", 1, kMaxRanks);
  value.replicate = fields.integer_in("replicate", 0, kMaxReplicates - 1);
  value.reason = fields.text("reason");
  value.modes = read_array<std::string>(fields.required("modes"), fields.path_of("modes"), read_string);
  value.rerun_modes =
      read_array<std::string>(fields.required("rerun_modes"), fields.path_of("rerun_modes"), read_string);
  fields.finish();
  return value;
}

Finding read_finding(const json& in, const std::string& path) {
  ObjectReader fields(in, path);
  Finding value;
  value.id = fields.text("id");
  value.cell = fields.text("cell");
  value.sentence = fields.text("sentence");
  const auto& evidence = fields.required("evidence");
  if (!evidence.is_object())
    fail_at(fields.path_of("evidence"), std::string("expected an object, got ") + evidence.type_name());
  for (const auto& [name, figure] : evidence.items())
    value.evidence.emplace_back(name, read_number_or_null(figure, fields.path_of("evidence") + "." + name));
  fields.finish();
  return value;
}

CellResult read_cell(const json& in, const std::string& path, ReportVersion version) {
  ObjectReader fields(in, path);
  CellResult value;
  value.workload = fields.text("workload");
  value.mode = fields.text("mode");
  value.device = fields.text("device");
  value.preset = fields.text("preset");
  // Version 1 knew nothing of ranks: its cells ran on one, and a "ranks" there is an unknown field.
  if (version != ReportVersion::kBeforeRanks) value.ranks = fields.integer_in("ranks", 1, kMaxRanks);
  value.status = read_cell_status(fields);
  value.error = fields.text("error");
  value.settings = read_mode_settings(fields.required("settings"), fields.path_of("settings"));
  value.warmup_steps = fields.integer("warmup_steps");
  read_samples(fields, value);
  value.throughput = read_throughput(fields.required("throughput"), fields.path_of("throughput"));
  value.memory = read_memory(fields.required("memory"), fields.path_of("memory"));
  const auto optional_object = [&fields](std::string_view key, auto reader) {
    const auto* field = fields.optional(key);
    return field == nullptr ? std::nullopt : std::optional(reader(*field, fields.path_of(key)));
  };
  value.scaler = optional_object("scaler", read_scaler);
  value.precision = optional_object("precision", read_precision);
  value.tensor_cores = read_tensor_cores(fields.required("tensor_cores"), fields.path_of("tensor_cores"));
  value.numerics = optional_object("numerics", read_numerics);
  // Reports from before the numerics pass compared the timed steps' losses (a "p_value" and a
  // "bound"): a figure this version does not stand behind, so it reads as no divergence.
  const auto* divergence = fields.optional("divergence");
  if (divergence != nullptr && !divergence->contains("p_value"))
    value.divergence = read_divergence(*divergence, fields.path_of("divergence"));
  if (const auto* rounds = fields.optional("rounds")) {
    value.rounds = read_rounds(*rounds, fields.path_of("rounds"), value.step_times_s.size(), value.device);
  }
  value.speedup_vs_fp32 = optional_object("speedup_vs_fp32", read_ratio);
  value.memory_ratio_vs_fp32 = optional_object("memory_ratio_vs_fp32", read_ratio);
  value.breakdown = optional_object("breakdown", read_breakdown);  // absent in older reports
  if (version != ReportVersion::kBeforeRanks)
    value.data_parallel = optional_object("data_parallel", read_data_parallel);
  if (const auto* faults = fields.optional("page_faults")) {  // absent in older reports
    value.page_faults = read_page_faults(*faults, fields.path_of("page_faults"));
  }
  if (const auto* energy = fields.optional("energy")) {  // where energy was measured
    if (!value.rounds) fail_at(fields.path_of("energy"), "present on a cell without rounds");
    value.energy = read_energy(*energy, fields.path_of("energy"), value.rounds->step_time_s.size());
  }
  value.energy_ratio_vs_fp32 = optional_object("energy_ratio_vs_fp32", read_ratio);
  fields.finish();
  require_judgeable(value, path);
  require_data_parallel_fits(value, path);
  require_page_faults_fit(value, path);
  return value;
}

}  // namespace ampbench::reports::detail
