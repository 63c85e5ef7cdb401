#include "measure/tensor_memory.h"

#include <ATen/Context.h>

#include <algorithm>

#include "measure/memory_meters.h"

namespace ampbench::harness::detail {
namespace {

// The caching allocator's statistics through c10's backend-neutral interface: no CUDA runtime
// call of ampbench's own (docs/building.md, "Which CUDA libraries a process loads").
c10::CachingDeviceAllocator::DeviceStats cuda_stats(const c10::Device& device) {
  return cuda_caching_allocator().getDeviceStats(device.index());
}

constexpr auto kAll = static_cast<std::size_t>(c10::CachingAllocator::StatType::AGGREGATE);

}  // namespace

c10::DeviceAllocator& cuda_caching_allocator() {
  at::globalContext().lazyInitDevice(c10::DeviceType::CUDA);  // once per process (call_once inside)
  return *c10::getDeviceAllocator(c10::DeviceType::CUDA);
}

TensorMemoryProbe::TensorMemoryProbe(c10::Device device) : device_(device) {
  if (device_.is_cpu()) (void)CpuTensorMemoryMeter::install();
}

std::int64_t TensorMemoryProbe::live_bytes() const {
  if (device_.is_cpu()) return CpuTensorMemoryMeter::install().live_bytes();
  return cuda_stats(device_).allocated_bytes[kAll].current;
}

std::int64_t TensorMemoryProbe::peak_bytes() const {
  if (device_.is_cpu()) return CpuTensorMemoryMeter::install().peak_bytes();
  return cuda_stats(device_).allocated_bytes[kAll].peak;
}

void TensorMemoryProbe::reset_peak() {
  if (device_.is_cpu()) {
    CpuTensorMemoryMeter::install().reset_peak();
  } else {
    cuda_caching_allocator().resetPeakStats(device_.index());
  }
}

void ModeMemoryLedger::begin(TensorMemoryProbe& probe) {
  live_at_begin_ = probe.live_bytes();
  probe.reset_peak();
}

void ModeMemoryLedger::end(TensorMemoryProbe& probe) {
  peak_ = std::max(peak_, kept_ + probe.peak_bytes() - live_at_begin_);
  kept_ += probe.live_bytes() - live_at_begin_;
}

}  // namespace ampbench::harness::detail
