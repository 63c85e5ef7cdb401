#include <string>

#include "ampbench/reports/report_json.h"
#include "io/device_state_json.h"
#include "io/json_number.h"

namespace ampbench::reports::detail {
namespace {

// An optional figure is written only when present, so a device without the query writes nothing.
void put(nlohmann::json& out, const char* key, const std::optional<double>& value) {
  if (value) out[key] = json_number(*value);
}

nlohmann::json round_json(const GpuRoundState& round) {
  auto out = nlohmann::json::object();
  put(out, "sm_clock_mhz", round.sm_clock_mhz);
  put(out, "memory_clock_mhz", round.memory_clock_mhz);
  put(out, "power_w", round.power_w);
  put(out, "temperature_c", round.temperature_c);
  out["reasons"] = round.reasons;
  auto violations = nlohmann::json::object();
  for (const auto& [cause, seconds] : round.violation_s) violations[cause] = json_number(seconds);
  out["violation_s"] = violations;
  return out;
}

}  // namespace

nlohmann::json device_rounds_json(const DeviceRounds& device) {
  auto rounds = nlohmann::json::array();
  for (const auto& round : device.rounds) rounds.push_back(round_json(round));
  nlohmann::json out = {{"rounds", rounds},
                        {"throttle_threshold_percent", json_number(device.throttle_threshold_percent)},
                        {"throttled_rounds", device.throttled_rounds}};
  put(out, "max_sm_clock_mhz", device.max_sm_clock_mhz);
  return out;
}

nlohmann::json energy_json(const Energy& energy) {
  return {{"meter", energy.meter},
          {"counter_update_s", json_number(energy.counter_update_s)},
          {"round_joules", json_numbers(energy.round_joules)},
          {"round_window_s", json_numbers(energy.round_window_s)},
          {"joules_per_step", energy.joules_per_step},
          {"average_power_w", json_number(energy.average_power_w)}};
}

nlohmann::json energy_meter_json(const EnergyMeterRecord& meter) {
  return {{"device", meter.device},
          {"status", std::string(to_string(meter.status))},
          {"meter", meter.meter},
          {"reason", meter.reason}};
}

nlohmann::json gpu_clocks_json(const GpuClockRecord& clocks) {
  auto out = nlohmann::json::object();
  if (clocks.persistence_mode) out["persistence_mode"] = *clocks.persistence_mode;
  put(out, "max_sm_clock_mhz", clocks.max_sm_clock_mhz);
  put(out, "max_memory_clock_mhz", clocks.max_memory_clock_mhz);
  put(out, "applications_sm_clock_mhz", clocks.applications_sm_clock_mhz);
  put(out, "default_applications_sm_clock_mhz", clocks.default_applications_sm_clock_mhz);
  put(out, "power_limit_w", clocks.power_limit_w);
  put(out, "default_power_limit_w", clocks.default_power_limit_w);
  return out;
}

}  // namespace ampbench::reports::detail
