#include "render/device_state_notes.h"

#include <algorithm>
#include <cmath>

#include "ampbench/reports/derived_figures.h"
#include "render/format.h"
#include "render/summary_rows.h"
#include "stats/throttled_rounds.h"

namespace ampbench::reports::detail {
namespace {

// A window this many times the counter's update period reads within a few percent.
constexpr double kWindowsPerUpdate = 10.0;

struct Range {
  double low = INFINITY;
  double high = -INFINITY;
  void add(const std::optional<double>& value) {
    if (!value) return;
    low = std::min(low, *value);
    high = std::max(high, *value);
  }
  [[nodiscard]] bool empty() const { return low > high; }
  [[nodiscard]] std::string text(const char* unit) const {
    const auto figure = [](double value) { return format_fixed(value, 0); };
    return (low == high ? figure(low) : figure(low) + "-" + figure(high)) + " " + unit;
  }
};

double median_window_s(const Energy& energy) {
  auto windows = energy.round_window_s;
  if (windows.empty()) return 0.0;
  std::nth_element(windows.begin(), windows.begin() + static_cast<std::ptrdiff_t>(windows.size() / 2), windows.end());
  return windows[windows.size() / 2];
}

// The shortest median window of any cell, against its counter's update period.
std::string coarse_windows(const Report& report) {
  const CellResult* shortest = nullptr;
  for (const auto& cell : report.cells) {
    if (cell.status != CellStatus::kOk || !cell.energy) continue;
    if (shortest == nullptr || median_window_s(*cell.energy) < median_window_s(*shortest->energy)) shortest = &cell;
  }
  if (shortest == nullptr) return "";
  const auto& energy = *shortest->energy;
  const double window = median_window_s(energy);
  if (window >= kWindowsPerUpdate * energy.counter_update_s) return "";
  return " " + cell_name(*shortest) + "'s windows are " + format_duration(window) + " against a counter that moves " +
         "every " + format_duration(energy.counter_update_s) +
         " at most: each round's figure is coarse, and the interval says how coarse (a longer --round-steps "
         "lengthens them).";
}

std::string throttled_cells(const Report& report) {
  std::string list;
  for (const auto& cell : report.cells) {
    if (cell.status != CellStatus::kOk || !cell.rounds || !cell.rounds->device) continue;
    const auto& device = *cell.rounds->device;
    if (device.throttled_rounds == 0) continue;
    const auto causes = throttle_causes_of(cell);
    std::string named;
    for (const auto& cause : causes) named += (named.empty() ? "" : ", ") + cause;
    list += (list.empty() ? "" : "; ") + cell_name(cell) + " " + std::to_string(device.throttled_rounds) + " of " +
            std::to_string(device.rounds.size()) + " (" + named + ")";
  }
  return list;
}

}  // namespace

std::string energy_note(const Report& report) {
  const auto& meter = report.environment.energy_meter;
  if (!meter) return "";
  if (meter->status != MeasurementStatus::kMeasured) {
    return "Energy: not measured on " + meter->device + ": " + meter->reason + ".";
  }
  const bool cpu = meter->device == "cpu";
  return "Energy (" + meter->meter + "): the counter read before and after each cell's timed steps in every round" +
         (cpu ? "; the whole package's and its memory's joules, what else ran then included"
              : ", once the GPU finished them; the whole GPU's joules") +
         ". Energy vs fp32 pairs the same rounds as the speedup." + coarse_windows(report);
}

std::string gpu_state_note(const Report& report) {
  Range sm;
  Range memory;
  Range power;
  Range temperature;
  const DeviceRounds* rule = nullptr;
  for (const auto& cell : report.cells) {
    if (cell.status != CellStatus::kOk || !cell.rounds || !cell.rounds->device) continue;
    rule = &*cell.rounds->device;
    for (const auto& round : rule->rounds) {
      sm.add(round.sm_clock_mhz);
      memory.add(round.memory_clock_mhz);
      power.add(round.power_w);
      temperature.add(round.temperature_c);
    }
  }
  if (rule == nullptr) return "";
  std::string out = "GPU state (NVML, per round):";
  if (!sm.empty()) {
    out += " SM clock " + sm.text("MHz");
    if (rule->max_sm_clock_mhz) out += " (maximum " + format_fixed(*rule->max_sm_clock_mhz, 0) + ")";
    out += ",";
  }
  if (!memory.empty()) out += " memory clock " + memory.text("MHz") + ",";
  if (!power.empty()) out += " power " + power.text("W") + ",";
  if (!temperature.empty()) out += " up to " + format_fixed(temperature.high, 0) + " C,";
  out.back() = '.';
  const auto throttled = throttled_cells(report);
  out += " Throttled rounds (a slowing clocks-event reason, or the SM clock below " +
         format_general(rule->throttle_threshold_percent) +
         "% of its maximum: --throttle-threshold) are left out of the speedups while two remain: " +
         (throttled.empty() ? "none ran throttled." : throttled + ".");
  if (!sm.empty() && sm.low < sm.high * (1.0 - kClockSteadyShare)) {
    const auto top = format_fixed(rule->max_sm_clock_mhz.value_or(sm.high), 0);
    out +=
        " The SM clock moved, so clocks were not locked and step times move with them: `sudo nvidia-smi "
        "--persistence-mode=1` and `sudo nvidia-smi --lock-gpu-clocks=" +
        top + "," + top + "` hold them (`--reset-gpu-clocks` undoes it).";
  }
  return out;
}

}  // namespace ampbench::reports::detail
