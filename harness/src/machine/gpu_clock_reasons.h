// NVML's clocks-event reasons (the nvmlClocksEventReason bits) and its violation causes (the
// nvmlPerfPolicyType_t values of nvmlDeviceGetViolationStatus), by the names reports use.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ampbench::harness::detail {

// The set bits of an nvmlClocksEventReason mask in bit order: "gpu_idle" (0x1),
// "applications_clocks_setting" (0x2), "sw_power_cap" (0x4), "hw_slowdown" (0x8), "sync_boost"
// (0x10), "sw_thermal_slowdown" (0x20), "hw_thermal_slowdown" (0x40), "hw_power_brake_slowdown"
// (0x80), "display_clock_setting" (0x100); any other bit as "unknown_0x200".
[[nodiscard]] std::vector<std::string> clock_event_reason_names(std::uint64_t mask);

enum class ViolationCause {
  kPower,
  kThermal,
  kSyncBoost,
  kBoardLimit,
  kLowUtilization,
  kReliability,
  kApplicationClocks,
  kBaseClocks
};
inline constexpr std::size_t kViolationCauseCount = 8;
inline constexpr std::array<ViolationCause, kViolationCauseCount> kViolationCauses{ViolationCause::kPower,
                                                                                   ViolationCause::kThermal,
                                                                                   ViolationCause::kSyncBoost,
                                                                                   ViolationCause::kBoardLimit,
                                                                                   ViolationCause::kLowUtilization,
                                                                                   ViolationCause::kReliability,
                                                                                   ViolationCause::kApplicationClocks,
                                                                                   ViolationCause::kBaseClocks};
// "power", "thermal", "sync_boost", "board_limit", "low_utilization", "reliability",
// "applications_clocks", "base_clocks".
[[nodiscard]] const char* violation_cause_name(ViolationCause cause);
// NVML's nvmlPerfPolicyType_t value of the cause (POWER 0 ... RELIABILITY 5, TOTAL_APP_CLOCKS 10,
// TOTAL_BASE_CLOCKS 11).
[[nodiscard]] int nvml_perf_policy(ViolationCause cause);

}  // namespace ampbench::harness::detail
