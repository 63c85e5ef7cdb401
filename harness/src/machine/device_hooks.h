// Private: what the runner needs from a GPU. Implemented in device_hooks_cuda.cpp when the CUDA
// toolkit is found (through LibTorch's c10::cuda, the wheel's runtime), and in
// device_hooks_no_cuda.cpp otherwise: harness/CMakeLists.txt picks one by AMPBENCH_WITH_CUDA.
#pragma once

#include <c10/core/Device.h>

#include <cstdint>
#include <functional>
#include <optional>

#include "ampbench/reports/report.h"
#include "measure/replayed_steps.h"

namespace ampbench::harness::detail {

// Waits for the device's queued work; a no-op on the CPU. (The hooks below that take a device
// accept a bare "cuda" and resolve it with resolve_device, device_selection.h.)
void synchronize(const c10::Device& device);

// LibTorch's current CUDA device; throws std::invalid_argument when there is no GPU or no CUDA.
[[nodiscard]] c10::DeviceIndex current_cuda_device();

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

// Tensor-core utilisation of the steps `steps` replays (run_pass must synchronise the device before
// returning; it is called several times, once per counter replay pass and once for the activity
// records, each after before_pass): CUPTI range profiler counters and the activity API's
// tensor-core share of kernel time. Skipped with the reason when `cupti_enabled` is false or a
// profiler is injected (external_profiler.h). What cannot be measured says why. Never throws for a
// measurement problem; an exception from run_pass outside the counter passes escapes.
[[nodiscard]] reports::TensorCoreUtilization profile_tensor_cores(const c10::Device& device, const ReplayedSteps& steps,
                                                                  bool cupti_enabled);

// Returns the caching allocator's unused blocks to the device (after an out-of-memory error).
void release_cached_memory(const c10::Device& device);

}  // namespace ampbench::harness::detail
