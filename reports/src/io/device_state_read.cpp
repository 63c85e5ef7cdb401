#include <string>

#include "io/device_state_json.h"
#include "io/report_read.h"

namespace ampbench::reports::detail {
namespace {

using nlohmann::json;

// NVML reports clocks of a few thousand MHz, a few hundred watts, temperatures near 100 C: a
// figure must at least be finite and not negative.
double read_non_negative(const json& value, const std::string& path) {
  const double figure = read_finite_number(value, path);
  if (figure < 0.0) fail_at(path, "expected 0 or more, got " + value.dump());
  return figure;
}

std::optional<double> optional_figure(ObjectReader& fields, std::string_view key) {
  const auto* value = fields.optional(key);
  if (value == nullptr) return std::nullopt;
  return read_non_negative(*value, fields.path_of(key));
}

GpuRoundState read_round(const json& in, const std::string& path) {
  ObjectReader fields(in, path);
  GpuRoundState round;
  round.sm_clock_mhz = optional_figure(fields, "sm_clock_mhz");
  round.memory_clock_mhz = optional_figure(fields, "memory_clock_mhz");
  round.power_w = optional_figure(fields, "power_w");
  round.temperature_c = optional_figure(fields, "temperature_c");
  round.reasons = read_array<std::string>(fields.required("reasons"), fields.path_of("reasons"), read_string);
  const auto& violations = fields.required("violation_s");
  ObjectReader causes(violations, fields.path_of("violation_s"));
  for (const auto& [cause, seconds] : violations.items()) {
    round.violation_s.emplace_back(cause, read_non_negative(causes.required(cause), causes.path_of(cause)));
  }
  causes.finish();
  fields.finish();
  return round;
}

void require_per_round(std::size_t values, std::size_t rounds, const std::string& path) {
  if (values != rounds) {
    fail_at(path, std::to_string(values) + " values for " + std::to_string(rounds) + " rounds");
  }
}

}  // namespace

DeviceRounds read_device_rounds(const json& in, const std::string& path, std::size_t rounds) {
  ObjectReader fields(in, path);
  DeviceRounds device;
  device.rounds = read_array<GpuRoundState>(fields.required("rounds"), fields.path_of("rounds"), read_round);
  require_per_round(device.rounds.size(), rounds, fields.path_of("rounds"));
  device.max_sm_clock_mhz = optional_figure(fields, "max_sm_clock_mhz");
  device.throttle_threshold_percent =
      read_finite_number(fields.required("throttle_threshold_percent"), fields.path_of("throttle_threshold_percent"));
  if (!(device.throttle_threshold_percent > 0.0 && device.throttle_threshold_percent <= 100.0)) {
    fail_at(fields.path_of("throttle_threshold_percent"), "must be in (0, 100]");
  }
  device.throttled_rounds = fields.integer_in("throttled_rounds", 0, static_cast<std::int64_t>(rounds));
  fields.finish();
  return device;
}

Energy read_energy(const json& in, const std::string& path, std::size_t rounds) {
  ObjectReader fields(in, path);
  Energy energy;
  energy.meter = fields.text("meter");
  energy.counter_update_s = read_non_negative(fields.required("counter_update_s"), fields.path_of("counter_update_s"));
  energy.round_joules =
      read_array<double>(fields.required("round_joules"), fields.path_of("round_joules"), read_non_negative);
  require_per_round(energy.round_joules.size(), rounds, fields.path_of("round_joules"));
  energy.round_window_s =
      read_array<double>(fields.required("round_window_s"), fields.path_of("round_window_s"), read_positive_seconds);
  require_per_round(energy.round_window_s.size(), rounds, fields.path_of("round_window_s"));
  energy.joules_per_step = read_round_estimate(fields.required("joules_per_step"), fields.path_of("joules_per_step"));
  energy.average_power_w = read_non_negative(fields.required("average_power_w"), fields.path_of("average_power_w"));
  fields.finish();
  return energy;
}

EnergyMeterRecord read_energy_meter(const json& in, const std::string& path) {
  ObjectReader fields(in, path);
  EnergyMeterRecord meter;
  meter.device = fields.text("device");
  meter.status = fields.named("status", kMeasurementStatuses);
  meter.meter = fields.text("meter");
  meter.reason = fields.text("reason");
  fields.finish();
  if (meter.status == MeasurementStatus::kUnavailable && meter.reason.empty()) {
    fail_at(path + ".reason", "an unavailable energy meter needs a reason");
  }
  return meter;
}

GpuClockRecord read_gpu_clocks(const json& in, const std::string& path) {
  ObjectReader fields(in, path);
  GpuClockRecord clocks;
  if (const auto* persistence = fields.optional("persistence_mode")) {
    clocks.persistence_mode = read_bool(*persistence, fields.path_of("persistence_mode"));
  }
  clocks.max_sm_clock_mhz = optional_figure(fields, "max_sm_clock_mhz");
  clocks.max_memory_clock_mhz = optional_figure(fields, "max_memory_clock_mhz");
  clocks.applications_sm_clock_mhz = optional_figure(fields, "applications_sm_clock_mhz");
  clocks.default_applications_sm_clock_mhz = optional_figure(fields, "default_applications_sm_clock_mhz");
  clocks.power_limit_w = optional_figure(fields, "power_limit_w");
  clocks.default_power_limit_w = optional_figure(fields, "default_power_limit_w");
  fields.finish();
  return clocks;
}

}  // namespace ampbench::reports::detail
