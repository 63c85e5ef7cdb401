// Built only without the CUDA toolkit: every device but the CPU is refused.
#include <stdexcept>

#include "../device_hooks.h"

namespace ampbench::harness::detail {

void synchronize(const c10::Device& /*device*/) {}
std::optional<DeviceMemory> start_device_memory(const c10::Device& /*device*/) { return std::nullopt; }
std::optional<DeviceMemory> read_device_memory(const c10::Device& /*device*/) { return std::nullopt; }

void require_device(const c10::Device& device) {
  if (!device.is_cpu()) throw std::invalid_argument("device '" + device.str() + "': ampbench was built without CUDA");
}

}  // namespace ampbench::harness::detail
