// Private: what the runner needs from a GPU. Implemented in cuda/device_hooks.cpp when the CUDA
// toolkit is found (through LibTorch's c10::cuda, the wheel's runtime), and in no_cuda/ otherwise.
#pragma once

#include <c10/core/Device.h>

#include <cstdint>
#include <functional>
#include <optional>

#include "ampbench/reports/report.h"

namespace ampbench::harness::detail {

// Waits for the device's queued work; a no-op on the CPU.
void synchronize(const c10::Device& device);

struct DeviceMemory {
  std::int64_t peak_allocated_bytes = 0;
  std::int64_t peak_reserved_bytes = 0;
  std::int64_t total_bytes = 0;
  std::int64_t free_bytes = 0;
};

// Resets the caching allocator's peaks and returns total and free memory now; nothing on the CPU.
[[nodiscard]] std::optional<DeviceMemory> start_device_memory(const c10::Device& device);
// The caching allocator's peaks since start_device_memory(); nothing on the CPU.
[[nodiscard]] std::optional<DeviceMemory> read_device_memory(const c10::Device& device);

// Throws with a clear message when the device cannot be used (no GPU, index out of range).
void require_device(const c10::Device& device);

// Tensor-core utilisation of the steps `run_profiled_steps` runs (it must synchronise the device
// before returning; it may be called several times, once per counter replay pass): CUPTI range
// profiler counters and the activity API's tensor-core share of kernel time. What cannot be
// measured says why. Never throws for a measurement problem; an exception from the steps escapes.
[[nodiscard]] reports::TensorCoreUtilization profile_tensor_cores(const c10::Device& device,
                                                                  const std::function<void()>& run_profiled_steps);

// Returns the caching allocator's unused blocks to the device (after an out-of-memory error).
void release_cached_memory(const c10::Device& device);

}  // namespace ampbench::harness::detail
