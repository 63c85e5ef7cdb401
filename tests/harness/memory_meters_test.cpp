// The counting CPU allocator is exact for a known allocation pattern.
#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <c10/core/CPUAllocator.h>
#include <c10/core/alignment.h>

#include <cstdint>

#include "measure/memory_meters.h"

namespace {

using ampbench::harness::CpuTensorMemoryMeter;

TEST(CpuTensorMemoryMeter, PeakIsExactForAKnownAllocationPattern) {
  auto& meter = CpuTensorMemoryMeter::install();
  meter.reset_peak();
  const auto baseline = meter.live_bytes();
  {
    auto a = at::empty({1000}, at::kFloat);  // 4000 bytes
    auto b = at::empty({500}, at::kDouble);  // 4000 bytes: 8000 live
    EXPECT_EQ(meter.live_bytes() - baseline, 8000);
    a.reset();                              // 4000 live
    auto c = at::empty({250}, at::kFloat);  // 1000 bytes: 5000 live, peak stays 8000
    EXPECT_EQ(meter.live_bytes() - baseline, 5000);
  }
  EXPECT_EQ(meter.live_bytes(), baseline);
  EXPECT_EQ(meter.peak_bytes() - baseline, 8000);
}

TEST(CpuTensorMemoryMeter, ResetPeakLowersThePeakToWhatIsLive) {
  auto& meter = CpuTensorMemoryMeter::install();
  { auto big = at::empty({1 << 20}, at::kByte); }
  meter.reset_peak();
  EXPECT_EQ(meter.peak_bytes(), meter.live_bytes());
}

// oneDNN's buffers come and go through raw_allocate()/raw_deallocate() of LibTorch's current CPU
// allocator, zero bytes included (a GELU on a transformer's activations frees a nullptr so).
TEST(CpuTensorMemoryMeter, CountsRawAllocationsAndTakesBackAZeroByteOne) {
  auto& meter = CpuTensorMemoryMeter::install();
  c10::Allocator* allocator = c10::GetCPUAllocator();
  const auto baseline = meter.live_bytes();
  void* buffer = allocator->raw_allocate(3000);
  EXPECT_EQ(meter.live_bytes() - baseline, 3000);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(buffer) % c10::gAlignment, 0U);  // as LibTorch's own
  void* empty = allocator->raw_allocate(0);
  EXPECT_EQ(meter.live_bytes() - baseline, 3000);
  allocator->raw_deallocate(empty);
  allocator->raw_deallocate(buffer);
  EXPECT_EQ(meter.live_bytes(), baseline);
}

TEST(PeakRss, IsPositiveAndCanBeReset) {
  EXPECT_GT(ampbench::harness::peak_rss_bytes(), 0);
  EXPECT_TRUE(ampbench::harness::reset_peak_rss());
}

}  // namespace
