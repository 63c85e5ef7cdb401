// The notes beside the summary that say what the device was doing: how energy was measured (or
// why it was not), and a GPU's clocks, power and throttled rounds with a warning when its clocks
// moved. The terminal table, Markdown and HTML show the same sentences.
#pragma once

#include <string>

#include "ampbench/reports/report.h"

namespace ampbench::reports::detail {

// "Energy (NVML total energy counter): ...", "Energy: not measured on cpu: REASON", or empty for
// reports without an energy meter record.
[[nodiscard]] std::string energy_note(const Report& report);

// "GPU state (NVML, per round): SM clock 1410-1980 MHz ...; throttled rounds left out of the
// speedups: CELL 3 of 40 (sw_power_cap)", with the clock-locking advice when the SM clock moved;
// empty for reports without a GPU's state.
[[nodiscard]] std::string gpu_state_note(const Report& report);

// A SM clock whose lowest round is below its highest by more than this share did not hold still.
inline constexpr double kClockSteadyShare = 0.01;

}  // namespace ampbench::reports::detail
