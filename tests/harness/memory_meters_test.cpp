// The counting CPU allocator is exact for a known allocation pattern.
#include <gtest/gtest.h>

#include <ATen/ATen.h>

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

TEST(PeakRss, IsPositiveAndCanBeReset) {
  EXPECT_GT(ampbench::harness::peak_rss_bytes(), 0);
  EXPECT_TRUE(ampbench::harness::reset_peak_rss());
}

}  // namespace
