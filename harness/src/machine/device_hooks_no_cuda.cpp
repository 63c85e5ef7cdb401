// Built only without the CUDA toolkit: every device but the CPU is refused.
#include <stdexcept>

#include "machine/device_hooks.h"

namespace ampbench::harness::detail {

void synchronize(const c10::Device& /*device*/) {}
c10::DeviceIndex current_cuda_device() {
  throw std::invalid_argument("device 'cuda': ampbench was built without CUDA");
}
std::optional<DeviceMemory> start_device_memory(const c10::Device& /*device*/) { return std::nullopt; }
std::optional<DeviceMemory> read_device_memory(const c10::Device& /*device*/) { return std::nullopt; }

void require_device(const c10::Device& device) {
  if (!device.is_cpu()) throw std::invalid_argument("device '" + device.str() + "': ampbench was built without CUDA");
}

reports::TensorCoreUtilization profile_tensor_cores(const c10::Device& /*device*/, const ReplayedSteps& /*steps*/,
                                                    bool /*cupti_enabled*/) {
  reports::TensorCoreUtilization tensor_cores;
  tensor_cores.reason = "CPU device: tensor cores are a GPU feature, and this build has no CUDA toolkit";
  return tensor_cores;
}

void release_cached_memory(const c10::Device& /*device*/) {}

}  // namespace ampbench::harness::detail
