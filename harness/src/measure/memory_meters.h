// Peak memory of a cell on the CPU: live tensor bytes through a counting allocator installed as
// LibTorch's CPU allocator, and the process's peak resident set.
#pragma once

#include <cstdint>

namespace ampbench::harness {

// Counts the bytes of every CPU tensor allocated after install(), and their peak. Exact: it counts
// the sizes LibTorch asks for, not what malloc rounds them to.
class CpuTensorMemoryMeter {
 public:
  // Installs the counting allocator once per process (idempotent) and returns the meter.
  static CpuTensorMemoryMeter& install();

  void reset_peak();  // the peak becomes the bytes live now
  [[nodiscard]] std::int64_t live_bytes() const;
  [[nodiscard]] std::int64_t peak_bytes() const;

 private:
  CpuTensorMemoryMeter() = default;
};

// VmHWM of this process. reset_peak_rss() lowers it to the current RSS (Linux /proc/self/clear_refs);
// returns false when the kernel refuses, in which case the peak covers the whole process.
[[nodiscard]] std::int64_t peak_rss_bytes();
bool reset_peak_rss();

}  // namespace ampbench::harness
