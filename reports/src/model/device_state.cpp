#include "ampbench/reports/device_state.h"

#include <array>

namespace ampbench::reports {

bool reason_slows_clocks(std::string_view reason) {
  // Idle lowers the clocks for want of work, and the two settings are what the clocks were asked
  // to be: none of them is the GPU running slower than it was set to.
  constexpr std::array<std::string_view, 3> kNotSlowing{"gpu_idle", "applications_clocks_setting",
                                                        "display_clock_setting"};
  for (const auto name : kNotSlowing) {
    if (reason == name) return false;
  }
  return true;
}

std::vector<std::string> throttle_causes(const DeviceRounds& device, const GpuRoundState& round) {
  std::vector<std::string> causes;
  for (const auto& reason : round.reasons) {
    if (reason_slows_clocks(reason)) causes.push_back(reason);
  }
  if (device.max_sm_clock_mhz && round.sm_clock_mhz &&
      *round.sm_clock_mhz < device.throttle_threshold_percent / 100.0 * *device.max_sm_clock_mhz) {
    causes.emplace_back(kClockBelowThreshold);
  }
  return causes;
}

}  // namespace ampbench::reports
