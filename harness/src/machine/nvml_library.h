// NVML, loaded at run time: libnvidia-ml.so.1 comes with the NVIDIA driver, so a build and a
// machine without one work, and the GPU's state reads as absent there. The toolkit ships no
// nvml.h; nvml_library.cpp declares the few entry points it calls.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "ampbench/reports/device_state.h"
#include "machine/gpu_clock_reasons.h"

namespace ampbench::harness::detail {

inline constexpr const char* kNvmlLibrary = "libnvidia-ml.so.1";

// One sample of a GPU's state; a field is absent where NVML does not support its query there.
struct GpuSample {
  std::optional<double> sm_clock_mhz;
  std::optional<double> memory_clock_mhz;
  std::optional<double> power_w;
  std::optional<double> temperature_c;
  std::optional<std::uint64_t> clock_event_reasons;  // the nvmlClocksEventReason bit mask
  // Cumulative seconds below the clocks asked for, per cause (nvmlDeviceGetViolationStatus), in
  // kViolationCauses order.
  std::array<std::optional<double>, kViolationCauseCount> violation_s{};
};

class NvmlDevice {
 public:
  // Loads `library`, initialises NVML and opens the GPU with this PCI bus id ("00000000:41:00.0").
  // Throws std::runtime_error with a one-line reason naming the library or the call.
  explicit NvmlDevice(const std::string& pci_bus_id, const std::string& library = kNvmlLibrary);
  ~NvmlDevice();
  NvmlDevice(const NvmlDevice&) = delete;
  NvmlDevice& operator=(const NvmlDevice&) = delete;

  [[nodiscard]] GpuSample sample() const;
  [[nodiscard]] reports::GpuClockRecord clock_settings() const;
  // The cumulative energy counter in millijoules; absent where unsupported (before Volta).
  [[nodiscard]] std::optional<std::uint64_t> total_energy_mj() const;

 private:
  struct Api;
  void* library_ = nullptr;
  Api* api_ = nullptr;
  void* device_ = nullptr;  // nvmlDevice_t
};

}  // namespace ampbench::harness::detail
