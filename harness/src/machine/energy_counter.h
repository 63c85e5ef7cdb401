// The arithmetic of a cumulative energy counter: differences across its wrap, and a running total
// in joules from raw readings.
#pragma once

#include <cstdint>
#include <optional>

namespace ampbench::harness::detail {

// after - before, or across one wrap when after < before and the counter wraps at `range` (its
// maximum + 1; RAPL's max_energy_range_uj + 1). A range of 0 is a counter that never wraps
// (NVML's 64-bit millijoules): going backwards then throws std::runtime_error naming the readings.
[[nodiscard]] std::uint64_t counter_delta(std::uint64_t before, std::uint64_t after, std::uint64_t range);

// Raw readings in, joules since the first reading out; `joules_per_count` is 1e-3 for NVML's mJ,
// 1e-6 for RAPL's µJ.
class CumulativeEnergy {
 public:
  CumulativeEnergy(double joules_per_count, std::uint64_t range) : unit_(joules_per_count), range_(range) {}
  void add(std::uint64_t raw);
  [[nodiscard]] double joules() const { return static_cast<double>(counts_) * unit_; }

 private:
  double unit_;
  std::uint64_t range_;
  std::optional<std::uint64_t> last_;
  std::uint64_t counts_ = 0;
};

}  // namespace ampbench::harness::detail
