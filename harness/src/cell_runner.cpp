#include "ampbench/harness/cell_runner.h"

#include <ATen/Context.h>
#include <ATen/Parallel.h>
#include <ampbench/amp/op_counters.h>
#include <c10/util/Exception.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <stdexcept>

#include "ampbench/harness/memory_meters.h"
#include "ampbench/harness/mode.h"
#include "ampbench/reports/stats.h"
#include "ampbench/workloads/registry.h"
#include "device_hooks.h"
#include "device_step_timer.h"
#include "nvtx_ranges.h"
#include "precision_audit.h"
#include "stopping_rule.h"
#include "training_step.h"

namespace ampbench::harness {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::int64_t kBatchPool = 16;     // distinct pre-generated batches, cycled through
constexpr std::int64_t kProfiledSteps = 3;  // per CUPTI replay pass, after the timed steps (GPU only)

double seconds_between(Clock::time_point start, Clock::time_point end) {
  return std::chrono::duration<double>(end - start).count();
}

std::string error_text(const std::exception& error) {
  const auto* c10_error = dynamic_cast<const c10::Error*>(&error);
  const std::string text = c10_error != nullptr ? c10_error->what_without_backtrace() : error.what();
  return text.substr(0, text.find('\n'));
}

std::string dtype_name(c10::ScalarType dtype) {
  switch (dtype) {
    case c10::ScalarType::Half:
      return "float16";
    case c10::ScalarType::BFloat16:
      return "bfloat16";
    default:
      return "float32";
  }
}

void validate(const CellSpec& spec) {
  const auto require = [](bool ok, const std::string& message) {
    if (!ok) throw std::invalid_argument(message);
  };
  require(spec.warmup >= 0, "warmup must be >= 0, got " + std::to_string(spec.warmup));
  require(spec.min_steps >= 1, "min_steps must be >= 1, got " + std::to_string(spec.min_steps));
  require(spec.max_steps >= spec.min_steps, "max_steps must be >= min_steps");
  require(spec.max_noise > 0.0, "max_noise must be > 0");
  require(spec.time_cap_s > 0.0, "time_cap_s must be > 0");
}

// Sets the float32 precision knobs for the mode and reports what is in effect, so an FP32
// baseline always states its TF32 settings.
reports::ModeSettings configure_precision(const Mode& mode) {
  auto& context = at::globalContext();
  context.setFloat32MatmulPrecision(mode.tf32 ? "high" : "highest");
  context.setAllowTF32CuDNN(mode.tf32);
  reports::ModeSettings settings;
  settings.compute_dtype = dtype_name(mode.compute_dtype);
  settings.autocast = mode.autocast;
  settings.grad_scaler = mode.grad_scaler;
  settings.tf32_matmul = context.float32MatmulPrecision() != at::Float32MatmulPrecision::HIGHEST;
  settings.tf32_cudnn = context.allowTF32CuDNN();
  settings.float32_matmul_precision = mode.tf32 ? "high" : "highest";
  return settings;
}

reports::ScalerTelemetry scaler_telemetry(const amp::GradScaler& scaler) {
  reports::ScalerTelemetry telemetry;
  const auto records = scaler.telemetry();
  for (std::size_t step = 0; step < records.size(); ++step) {
    telemetry.scale.push_back(records[step].scale);
    if (records[step].skipped) telemetry.skipped_steps.push_back(static_cast<std::int64_t>(step));
  }
  return telemetry;
}

std::vector<double> losses_on_host(const std::vector<torch::Tensor>& losses) {
  const auto stacked = torch::stack(losses).to(torch::kCPU, torch::kDouble).contiguous();
  return {stacked.data_ptr<double>(), stacked.data_ptr<double>() + stacked.numel()};
}

void measure(const CellSpec& spec, const ProgressSink& progress, reports::CellResult& result) {
  validate(spec);
  const Mode& mode = find_mode(spec.mode);
  const c10::Device device(spec.device);
  detail::require_device(device);
  if (mode.cuda_only && !device.is_cuda()) {
    throw std::invalid_argument("mode '" + mode.name + "' needs a CUDA device");
  }
  if (spec.threads > 0) at::set_num_threads(spec.threads);
  result.settings = configure_precision(mode);
  auto& tensor_memory = CpuTensorMemoryMeter::install();
  const detail::PhaseRange cell_range(("cell " + spec.workload + "/" + spec.mode + "/" + spec.device).c_str());

  auto workload = workloads::make_workload(spec.workload, {spec.preset, spec.batch, spec.seed, device});
  auto optimizer = workload->make_optimizer();
  std::optional<amp::GradScaler> scaler;
  if (mode.grad_scaler) scaler.emplace(device.type());
  const detail::TrainingStep step{*workload, *optimizer, scaler ? &*scaler : nullptr, mode, device.type()};
  std::vector<workloads::Batch> batches;
  for (std::int64_t index = 0; index < kBatchPool; ++index) batches.push_back(workload->make_batch(index));
  const auto run_step = [&](std::int64_t index) {
    const bool inject = std::count(spec.inject_overflow_steps.begin(), spec.inject_overflow_steps.end(), index) > 0;
    return step.run(batches[static_cast<std::size_t>(index % kBatchPool)], inject);
  };

  const auto device_memory_start = detail::start_device_memory(device);
  tensor_memory.reset_peak();
  reset_peak_rss();
  std::vector<torch::Tensor> losses;
  for (std::int64_t index = 0; index < spec.warmup; ++index) {
    losses.push_back(run_step(index));
    if (progress) progress({index + 1, 0, 0.0, spec.time_cap_s});
  }
  detail::synchronize(device);
  amp::reset_op_counts();

  // A CPU step is timed on the host. A GPU step is timed by events on the device (its host time
  // is kept too: the gap between the two is host overhead), and the loop never waits for the
  // device: the stopping rule sees the steps the device has finished so far.
  const detail::StoppingRule rule{spec.min_steps, spec.max_steps, spec.max_noise, spec.time_cap_s};
  std::optional<detail::DeviceStepTimer> device_timer;
  if (!device.is_cpu()) device_timer.emplace(device);
  std::vector<double> host_step_times;
  const auto timed_start = Clock::now();
  for (std::int64_t index = spec.warmup;; ++index) {
    const auto start = Clock::now();
    if (device_timer) device_timer->start_step();
    losses.push_back(run_step(index));
    if (device_timer) device_timer->end_step();
    const auto end = Clock::now();
    host_step_times.push_back(seconds_between(start, end));
    const auto& step_times = device_timer ? device_timer->finished_step_seconds() : host_step_times;
    const double elapsed = seconds_between(timed_start, end);
    const auto steps_run = static_cast<std::int64_t>(host_step_times.size());
    if (progress) progress({index + 1, steps_run, elapsed, spec.time_cap_s});
    if (auto reason = rule.reason_to_stop(step_times, steps_run, elapsed)) {
      result.throughput.stop_reason = *reason;
      break;
    }
  }

  result.warmup_steps = spec.warmup;
  const auto& step_times = device_timer ? device_timer->all_step_seconds() : host_step_times;
  result.step_times_s = step_times;
  if (device_timer) result.host_step_times_s = host_step_times;
  result.losses = losses_on_host(losses);
  auto& throughput = result.throughput;
  throughput.step_time_s = reports::summarize(step_times);
  const double median = throughput.step_time_s.median;
  throughput.samples_per_step = workload->samples_per_step();
  throughput.tokens_per_step = workload->tokens_per_step();
  throughput.samples_per_s = static_cast<double>(throughput.samples_per_step) / median;
  throughput.tokens_per_s = static_cast<double>(throughput.tokens_per_step) / median;
  throughput.flops_per_step = workload->flops_per_step();
  throughput.achieved_flops_per_s = throughput.flops_per_step / median;

  result.memory.peak_tensor_bytes = tensor_memory.peak_bytes();
  result.memory.peak_rss_bytes = peak_rss_bytes();
  if (const auto device_memory = detail::read_device_memory(device)) {
    result.memory.peak_tensor_bytes = device_memory->peak_allocated_bytes;
    result.memory.cuda_peak_reserved_bytes = device_memory->peak_reserved_bytes;
    result.memory.cuda_total_bytes = device_memory_start->total_bytes;
    result.memory.cuda_free_bytes_at_start = device_memory_start->free_bytes;
  }
  if (scaler) result.scaler = scaler_telemetry(*scaler);
  if (mode.autocast) result.precision = detail::precision_audit(amp::op_counts());

  // Last, on steps of their own: counters and replays would perturb the timed steps, and these
  // steps must not add to the losses, scaler telemetry or op counts read above.
  std::int64_t next_step = spec.warmup + static_cast<std::int64_t>(host_step_times.size());
  result.tensor_cores = detail::profile_tensor_cores(device, [&] {
    for (std::int64_t profiled = 0; profiled < kProfiledSteps; ++profiled) (void)run_step(next_step++);
    detail::synchronize(device);
  });
}

}  // namespace

reports::CellResult run_cell(const CellSpec& spec, const ProgressSink& progress) {
  reports::CellResult result;
  result.workload = spec.workload;
  result.mode = spec.mode;
  result.device = spec.device;
  result.preset = spec.preset;
  try {
    measure(spec, progress, result);
  } catch (const c10::OutOfMemoryError& error) {
    // Recorded, and the cache emptied so that a later cell in this process starts clean. (Under
    // `ampbench run` each cell has its own process anyway, which also confines sticky CUDA errors.)
    result.status = "failed";
    result.error = "out of memory on " + spec.device + ": " + error_text(error);
    detail::release_cached_memory(c10::Device(spec.device));
  } catch (const std::exception& error) {
    result.status = "failed";
    result.error = error_text(error);
  }
  return result;
}

}  // namespace ampbench::harness
