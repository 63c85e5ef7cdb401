#include "measure/round_meters.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "machine/device_hooks.h"
#include "machine/gpu_clock_reasons.h"

namespace ampbench::harness::detail {
namespace {

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

template <typename Field>
std::vector<double> present(const std::vector<GpuSample>& samples, Field field) {
  std::vector<double> values;
  for (const auto& sample : samples) {
    if (const auto& value = sample.*field) values.push_back(*value);
  }
  return values;
}

std::optional<double> lowest(const std::vector<double>& values) {
  if (values.empty()) return std::nullopt;
  return *std::min_element(values.begin(), values.end());
}

std::optional<double> highest(const std::vector<double>& values) {
  if (values.empty()) return std::nullopt;
  return *std::max_element(values.begin(), values.end());
}

std::optional<double> mean(const std::vector<double>& values) {
  if (values.empty()) return std::nullopt;
  double sum = 0.0;
  for (const double value : values) sum += value;
  return sum / static_cast<double>(values.size());
}

}  // namespace

reports::GpuRoundState summarize_round(const GpuSample& start, const std::vector<GpuSample>& samples) {
  reports::GpuRoundState round;
  round.sm_clock_mhz = lowest(present(samples, &GpuSample::sm_clock_mhz));
  round.memory_clock_mhz = lowest(present(samples, &GpuSample::memory_clock_mhz));
  round.power_w = mean(present(samples, &GpuSample::power_w));
  round.temperature_c = highest(present(samples, &GpuSample::temperature_c));
  std::uint64_t reasons = 0;
  for (const auto& sample : samples) reasons |= sample.clock_event_reasons.value_or(0);
  round.reasons = clock_event_reason_names(reasons);
  if (samples.empty()) return round;
  for (std::size_t cause = 0; cause < kViolationCauseCount; ++cause) {
    const auto& before = start.violation_s[cause];
    const auto& after = samples.back().violation_s[cause];
    if (before && after && *after > *before) {
      round.violation_s.emplace_back(violation_cause_name(kViolationCauses[cause]), *after - *before);
    }
  }
  return round;
}

RoundMeters::RoundMeters(c10::Device device, std::size_t slots)
    : device_(device), slot_energy_(slots), round_joules_(slots, 0.0), round_window_s_(slots, 0.0) {
  if (device.is_cuda()) {
    try {
      nvml_ = open_nvml(device);
      max_sm_clock_mhz_ = nvml_->clock_settings().max_sm_clock_mhz;
    } catch (const std::runtime_error&) {
      nvml_.reset();  // no GPU state: the environment's clock record is absent too, which says so
    }
  }
  try {
    energy_ = open_energy_meter(device, nvml_);
  } catch (const std::runtime_error&) {
    energy_.reset();  // the environment's energy_meter record carries the reason
  }
}

const std::string& RoundMeters::energy_meter() const {
  static const std::string none;
  return energy_ ? energy_->description : none;
}

double RoundMeters::energy_update_s() const { return energy_ ? energy_->update_s : 0.0; }

void RoundMeters::begin_round() {
  samples_.clear();
  std::fill(round_joules_.begin(), round_joules_.end(), 0.0);
  std::fill(round_window_s_.begin(), round_window_s_.end(), 0.0);
  if (nvml_) round_start_ = nvml_->sample();
}

void RoundMeters::begin_block() {
  if (!energy_) return;
  synchronize(device_);
  block_start_joules_ = energy_->joules();
  block_start_s_ = now_s();
}

void RoundMeters::end_block(std::size_t slot) {
  sample_gpu();
  if (!energy_) return;
  synchronize(device_);
  round_joules_[slot] += energy_->joules() - block_start_joules_;
  round_window_s_[slot] += now_s() - block_start_s_;
}

void RoundMeters::sample_gpu() {
  if (nvml_) samples_.push_back(nvml_->sample());
}

void RoundMeters::end_round() {
  if (nvml_) device_rounds_.push_back(summarize_round(round_start_, samples_));
  if (!energy_) return;
  for (std::size_t slot = 0; slot < slot_energy_.size(); ++slot) {
    slot_energy_[slot].round_joules.push_back(round_joules_[slot]);
    slot_energy_[slot].round_window_s.push_back(round_window_s_[slot]);
  }
}

}  // namespace ampbench::harness::detail
