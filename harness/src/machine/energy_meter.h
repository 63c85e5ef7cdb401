// The counter a run reads its device's energy from: NVML's total-energy counter on a GPU (Volta
// and later), RAPL's package and DRAM counters on a CPU (where the kernel lets this user read them).
#pragma once

#include <c10/core/Device.h>

#include <functional>
#include <memory>
#include <string>

#include "ampbench/reports/device_state.h"
#include "machine/nvml_library.h"

namespace ampbench::harness::detail {

// NVML's energy counter moves every 20 to 100 ms (its documentation); RAPL's about every
// millisecond. The longest is what a window is judged against.
inline constexpr double kNvmlEnergyUpdateSeconds = 0.1;
inline constexpr double kRaplEnergyUpdateSeconds = 0.001;

struct EnergyMeter {
  std::string description;  // Energy::meter
  double update_s = 0.0;
  std::function<double()> joules;  // cumulative, since the meter was opened
};

// NVML opened on this GPU; throws std::runtime_error with the reason (no driver library, ...).
[[nodiscard]] std::shared_ptr<NvmlDevice> open_nvml(const c10::Device& device);

// The device's meter; `nvml` is the GPU's NVML when it could be opened (null otherwise). Throws
// std::runtime_error with a one-line reason that names the library or file when there is none.
[[nodiscard]] EnergyMeter open_energy_meter(const c10::Device& device, const std::shared_ptr<NvmlDevice>& nvml);

// The run's record of its meter (Environment::energy_meter): measured with its description, or
// unavailable with the reason.
[[nodiscard]] reports::EnergyMeterRecord energy_meter_record(const c10::Device& device);

}  // namespace ampbench::harness::detail
