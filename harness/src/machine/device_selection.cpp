#include "machine/device_selection.h"

#include <stdexcept>
#include <string>

#include "machine/device_hooks.h"

namespace ampbench::harness {

c10::Device with_explicit_index(const c10::Device& device, c10::DeviceIndex current_cuda_index) {
  if (!device.is_cuda() || device.has_index()) return device;
  if (current_cuda_index < 0) {
    throw std::invalid_argument("device '" + device.str() + "': no current CUDA device to use (index " +
                                std::to_string(current_cuda_index) + ")");
  }
  return {c10::DeviceType::CUDA, current_cuda_index};
}

c10::Device resolve_device(const c10::Device& device) {
  if (!device.is_cuda() || device.has_index()) return device;
  return with_explicit_index(device, detail::current_cuda_device());
}

}  // namespace ampbench::harness
