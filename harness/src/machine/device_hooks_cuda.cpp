// The runner's GPU needs, through LibTorch's backend-neutral interfaces (c10::DeviceGuard,
// c10::DeviceAllocator), implemented inside libc10_cuda with the wheel's CUDA runtime. The CUDA
// headers' own guard and allocator classes are avoided on purpose: their inline methods call the
// CUDA runtime, which would make ampbench link a second libcudart (a test checks NEEDED).
// Compiled here without a GPU; exercised only on GPU machines.
#include <c10/core/CachingDeviceAllocator.h>
#include <c10/core/DeviceGuard.h>
#include <c10/cuda/CUDAFunctions.h>

#include <stdexcept>
#include <string>

#include "machine/device_hooks.h"
#include "machine/device_selection.h"
#include "measure/tensor_memory.h"

namespace ampbench::harness::detail {

// c10::cuda::device_synchronize waits for the *current* device only, and c10's guards put the
// previous device back after every op, so a cell on cuda:1 must make its device current here.
void synchronize(const c10::Device& device) {
  if (!device.is_cuda()) return;
  const c10::DeviceGuard guard(resolve_device(device));
  c10::cuda::device_synchronize();
}

c10::DeviceIndex current_cuda_device() {
  if (c10::cuda::device_count() == 0) throw std::invalid_argument("device 'cuda': no GPU found");
  return c10::cuda::current_device();
}

std::optional<DeviceMemory> start_device_memory(const c10::Device& requested) {
  if (!requested.is_cuda()) return std::nullopt;
  const c10::Device device = resolve_device(requested);
  const c10::DeviceGuard guard(device);
  auto& allocator = cuda_caching_allocator();
  allocator.emptyCache();
  allocator.resetPeakStats(device.index());
  const auto [free_bytes, total_bytes] = allocator.getMemoryInfo(device.index());
  return DeviceMemory{0, 0, static_cast<std::int64_t>(total_bytes), static_cast<std::int64_t>(free_bytes)};
}

std::optional<DeviceMemory> read_device_memory(const c10::Device& device) {
  if (!device.is_cuda()) return std::nullopt;
  const auto stats = cuda_caching_allocator().getDeviceStats(resolve_device(device).index());
  constexpr auto kAll = static_cast<size_t>(c10::CachingAllocator::StatType::AGGREGATE);
  DeviceMemory memory;
  memory.peak_allocated_bytes = stats.allocated_bytes[kAll].peak;
  memory.peak_reserved_bytes = stats.reserved_bytes[kAll].peak;
  return memory;
}

void release_cached_memory(const c10::Device& device) {
  if (device.is_cuda()) cuda_caching_allocator().emptyCache();
}

void require_device(const c10::Device& device) {
  if (device.is_cpu()) return;
  if (!device.is_cuda())
    throw std::invalid_argument("device '" + device.str() + "' is not supported (cpu or cuda[:N])");
  const int count = c10::cuda::device_count();
  if (count == 0) throw std::invalid_argument("device '" + device.str() + "': no GPU found");
  if (device.has_index() && device.index() >= count) {
    throw std::invalid_argument("device '" + device.str() + "': only " + std::to_string(count) + " GPU(s) visible");
  }
}

}  // namespace ampbench::harness::detail
