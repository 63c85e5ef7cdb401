// Internal: before any cell runs, whether a worker's sessions fit the GPU. A worker holds every mode
// of a workload at once (the rounds take turns step by step): each mode's model, gradients,
// optimizer state, teacher and batch pool stay, and one step's activations come and go (a graphed
// mode's stay, in its graph's pool). The workloads estimate their parts from their sizes
// (workloads/registry.h); this adds them up.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ampbench/harness/mode.h"
#include "ampbench/reports/run_config.h"
#include "ampbench/workloads/registry.h"

namespace ampbench::harness::detail {

// Kept free beyond the estimate: cuBLAS and cuDNN workspaces, the caching allocator's rounding.
inline constexpr double kPreflightHeadroom = 1.1;
inline constexpr double kPreflightWorkspaceBytes = 512.0 * 1024 * 1024;

// The device's free memory as a worker sees it (its own CUDA context made, nothing allocated yet);
// nothing on the CPU.
[[nodiscard]] std::optional<std::int64_t> free_device_bytes(const std::string& device);

// A worker's estimated peak for one workload in `modes`, with the headroom.
[[nodiscard]] double estimated_worker_bytes(const workloads::MemoryEstimate& estimate,
                                            const std::vector<const Mode*>& modes);

// Throws reports::SettingError naming the flag (--batch when given, else --preset), the workload,
// its estimate and `free_bytes`, and the largest batch that fits, when a workload does not fit.
// Workloads without an estimate are not checked.
void require_memory_fits(const reports::RunConfig& config, std::int64_t free_bytes);

}  // namespace ampbench::harness::detail
