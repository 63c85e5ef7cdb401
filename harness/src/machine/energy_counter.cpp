#include "machine/energy_counter.h"

#include <stdexcept>
#include <string>

namespace ampbench::harness::detail {

std::uint64_t counter_delta(std::uint64_t before, std::uint64_t after, std::uint64_t range) {
  if (after >= before) return after - before;
  if (range == 0 || before >= range) {
    throw std::runtime_error("energy counter went backwards (" + std::to_string(before) + " then " +
                             std::to_string(after) + ") and does not wrap");
  }
  return range - before + after;
}

void CumulativeEnergy::add(std::uint64_t raw) {
  if (last_) counts_ += counter_delta(*last_, raw, range_);
  last_ = raw;
}

}  // namespace ampbench::harness::detail
