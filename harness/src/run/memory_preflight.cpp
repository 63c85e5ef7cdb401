#include "run/memory_preflight.h"

#include <c10/core/ScalarType.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

#include "ampbench/workloads/preset.h"
#include "machine/device_hooks.h"
#include "measure/mode_session.h"

namespace ampbench::harness::detail {
namespace {

using reports::flag_of;
using reports::RunConfig;

// "18.2 GiB": the one unit an error about a GPU's memory needs.
std::string gib(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f GiB", bytes / (1024.0 * 1024.0 * 1024.0));
  return text;
}

// What stays for the whole worker, per mode: float32 weights and gradients, the optimizer's state,
// the workload's resident tensors and its batch pool.
double resident_bytes(const workloads::MemoryEstimate& estimate) {
  return estimate.trained_parameters * (8.0 + 4.0 * estimate.optimizer_state) + estimate.resident_bytes +
         static_cast<double>(kBatchPool) * estimate.batch_bytes;
}

// What one step of `mode` adds while it runs: its activations at the compute width and, under
// autocast, the low-precision copies of the weights.
double step_bytes(const workloads::MemoryEstimate& estimate, const Mode& mode) {
  const auto width = static_cast<double>(c10::elementSize(mode.compute_dtype));
  const double casts = mode.autocast ? width * estimate.trained_parameters : 0.0;
  return (estimate.saved_activations + estimate.largest_temporary) * width + casts;
}

workloads::WorkloadOptions options_for(const RunConfig& config, std::optional<std::int64_t> batch) {
  workloads::WorkloadOptions options;
  options.preset = workloads::parse_preset(config.preset);
  options.batch = batch;
  return options;
}

// The largest batch below `batch` whose estimate fits, or 0 when not even 1 does (the workload has
// an estimate: the caller's did not fit).
std::int64_t largest_fitting_batch(const std::string& workload, const RunConfig& config, std::int64_t batch,
                                   const std::vector<const Mode*>& modes, double free_bytes) {
  const auto fits = [&](std::int64_t candidate) {
    const auto estimate = workloads::estimate_memory(workload, options_for(config, candidate));
    return estimated_worker_bytes(*estimate, modes) <= free_bytes;
  };
  std::int64_t low = 0;
  std::int64_t high = batch;  // does not fit
  while (high - low > 1) {
    const std::int64_t middle = low + (high - low) / 2;
    (fits(middle) ? low : high) = middle;
  }
  return low;
}

}  // namespace

std::optional<std::int64_t> free_device_bytes(const std::string& device) {
  const auto memory = start_device_memory(c10::Device(device));
  if (!memory) return std::nullopt;
  return memory->free_bytes;
}

double estimated_worker_bytes(const workloads::MemoryEstimate& estimate, const std::vector<const Mode*>& modes) {
  // With CUDA graphs every mode also keeps a static batch, and a graphed mode keeps its captured
  // step's memory in the graph's own pool for good.
  const bool graphs = std::any_of(modes.begin(), modes.end(), [](const Mode* mode) { return mode->graphed; });
  double resident = 0.0;
  double step = 0.0;
  for (const Mode* mode : modes) {
    resident += resident_bytes(estimate) + (graphs ? estimate.batch_bytes : 0.0);
    if (mode->graphed) {
      resident += step_bytes(estimate, *mode);
    } else {
      step = std::max(step, step_bytes(estimate, *mode));
    }
  }
  return (resident + step) * kPreflightHeadroom + kPreflightWorkspaceBytes;
}

void require_memory_fits(const RunConfig& config, std::int64_t free_bytes) {
  std::vector<const Mode*> modes;
  for (const auto& name : config.modes) modes.push_back(&find_mode(name));
  const auto free = static_cast<double>(free_bytes);
  for (const auto& workload : config.workloads) {
    const auto estimate = workloads::estimate_memory(workload, options_for(config, config.batch));
    if (!estimate) continue;
    const double needed = estimated_worker_bytes(*estimate, modes);
    if (needed <= free) continue;
    const auto batch = estimate->batch;
    const auto fits = largest_fitting_batch(workload, config, batch, modes, free);
    const std::string flag = config.batch ? flag_of(&RunConfig::batch) + " " + std::to_string(*config.batch)
                                          : flag_of(&RunConfig::preset) + " " + config.preset;
    throw reports::SettingError(
        flag + ": " + workload + " needs about " + gib(needed) + " on " + config.device + " for " +
        std::to_string(modes.size()) + " modes (estimated, with " +
        std::to_string(std::lround((kPreflightHeadroom - 1.0) * 100.0)) + "% headroom) and " + gib(free) +
        " is free; " +
        (fits > 0 ? "lower " + flag_of(&RunConfig::batch) + " (" + std::to_string(batch) + " now, " +
                        std::to_string(fits) + " fits) or run fewer " + flag_of(&RunConfig::modes)
                  : "run fewer " + flag_of(&RunConfig::modes) + " or a smaller " + flag_of(&RunConfig::preset)));
  }
}

}  // namespace ampbench::harness::detail
