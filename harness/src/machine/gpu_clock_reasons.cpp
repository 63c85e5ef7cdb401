#include "machine/gpu_clock_reasons.h"

#include <cstdio>

namespace ampbench::harness::detail {

std::vector<std::string> clock_event_reason_names(std::uint64_t mask) {
  constexpr std::array<const char*, 9> kNames{"gpu_idle",
                                              "applications_clocks_setting",
                                              "sw_power_cap",
                                              "hw_slowdown",
                                              "sync_boost",
                                              "sw_thermal_slowdown",
                                              "hw_thermal_slowdown",
                                              "hw_power_brake_slowdown",
                                              "display_clock_setting"};
  std::vector<std::string> names;
  for (unsigned bit = 0; bit < 64; ++bit) {
    const std::uint64_t value = std::uint64_t{1} << bit;
    if ((mask & value) == 0) continue;
    if (bit < kNames.size()) {
      names.emplace_back(kNames[bit]);
    } else {
      char text[32];
      std::snprintf(text, sizeof text, "unknown_0x%llx", static_cast<unsigned long long>(value));
      names.emplace_back(text);
    }
  }
  return names;
}

const char* violation_cause_name(ViolationCause cause) {
  switch (cause) {
    case ViolationCause::kPower:
      return "power";
    case ViolationCause::kThermal:
      return "thermal";
    case ViolationCause::kSyncBoost:
      return "sync_boost";
    case ViolationCause::kBoardLimit:
      return "board_limit";
    case ViolationCause::kLowUtilization:
      return "low_utilization";
    case ViolationCause::kReliability:
      return "reliability";
    case ViolationCause::kApplicationClocks:
      return "applications_clocks";
    case ViolationCause::kBaseClocks:
      return "base_clocks";
  }
  return "unknown";
}

int nvml_perf_policy(ViolationCause cause) {
  switch (cause) {
    case ViolationCause::kApplicationClocks:
      return 10;
    case ViolationCause::kBaseClocks:
      return 11;
    default:
      return static_cast<int>(cause);  // POWER 0 through RELIABILITY 5, in the enum's order
  }
}

}  // namespace ampbench::harness::detail
