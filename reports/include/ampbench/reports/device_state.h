// What the device was doing while a cell was timed: per round, a GPU's clocks, power, temperature
// and the reasons NVML gave for holding its clocks down (all read outside the timed steps), the
// rule that marks a round throttled, and what measures energy (report.h holds a cell's Energy).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ampbench/reports/measurement_status.h"

namespace ampbench::reports {

// A round is throttled when its lowest SM clock fell below this percentage of the chip's maximum:
// nvbench's default threshold for dropping a trial.
inline constexpr double kDefaultThrottleThresholdPercent = 75.0;

// One round's GPU state, from NVML samples taken after each block of the round. A figure is absent
// where the device does not support its query.
struct GpuRoundState {
  std::optional<double> sm_clock_mhz;      // the lowest sample
  std::optional<double> memory_clock_mhz;  // the lowest sample
  std::optional<double> power_w;           // the mean of the samples
  std::optional<double> temperature_c;     // the highest sample
  std::vector<std::string> reasons;        // every clocks-event reason a sample saw, in NVML's bit order
  // The time the GPU spent below the clocks asked for during the round, per cause ("power",
  // "thermal", ...): the growth of NVML's violation counters over the round; causes without any left out.
  std::vector<std::pair<std::string, double>> violation_s;
};

// NVML's clocks-event reasons by name ("gpu_idle", "applications_clocks_setting", "sw_power_cap",
// "hw_slowdown", "sync_boost", "sw_thermal_slowdown", "hw_thermal_slowdown",
// "hw_power_brake_slowdown", "display_clock_setting"): whether one means the GPU ran slower than it
// was set to. Every reason does but idle and the two clock settings, unknown ones included.
[[nodiscard]] bool reason_slows_clocks(std::string_view reason);

// The GPU state of a cell's rounds (Rounds::device) and the rule that marks a round throttled: a
// reason that slows the clocks was active, or the lowest SM clock fell below threshold_percent of
// the chip's maximum. Throttled rounds are left out of the speedups, as the machine probe's
// slow rounds are.
struct DeviceRounds {
  std::vector<GpuRoundState> rounds;  // one per round, in Rounds::step_time_s order
  std::optional<double> max_sm_clock_mhz;
  double throttle_threshold_percent = kDefaultThrottleThresholdPercent;
  std::int64_t throttled_rounds = 0;  // derived (derived_figures.h)
};

// Why the rule marks a round throttled: the slowing reasons it saw, and "sm_clock_below_threshold"
// when the clock fell below the threshold. Empty for a round that was not.
[[nodiscard]] std::vector<std::string> throttle_causes(const DeviceRounds& device, const GpuRoundState& round);
inline constexpr const char* kClockBelowThreshold = "sm_clock_below_threshold";

// What measured the cells' energy on the run's device, or why nothing could (Environment::energy_meter).
struct EnergyMeterRecord {
  std::string device;  // "cpu", "cuda:0"
  MeasurementStatus status = MeasurementStatus::kUnavailable;
  std::string meter;   // as Energy::meter
  std::string reason;  // why unavailable: names the library or file
};

// A GPU's clock and power settings as NVML reports them when the run starts (DeviceInfo::clocks).
struct GpuClockRecord {
  std::optional<bool> persistence_mode;
  std::optional<double> max_sm_clock_mhz;
  std::optional<double> max_memory_clock_mhz;
  std::optional<double> applications_sm_clock_mhz;
  std::optional<double> default_applications_sm_clock_mhz;
  std::optional<double> power_limit_w;
  std::optional<double> default_power_limit_w;
};

}  // namespace ampbench::reports
