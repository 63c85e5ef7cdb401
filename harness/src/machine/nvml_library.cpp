#include "machine/nvml_library.h"

#include <dlfcn.h>

#include <memory>
#include <stdexcept>

namespace ampbench::harness::detail {
namespace {

// The C API's types (nvml.h): a return code, an opaque device handle and a violation record.
using Return = int;
constexpr Return kSuccess = 0;
using Device = void*;
constexpr int kClockSm = 1;
constexpr int kClockMemory = 2;
constexpr int kTemperatureGpu = 0;

template <typename Function>
Function symbol(void* library, const char* name) {
  return reinterpret_cast<Function>(dlsym(library, name));
}

}  // namespace

struct NvmlDevice::Api {
  struct ViolationTime {  // nvmlViolationTime_t
    unsigned long long reference_time;
    unsigned long long violation_time;  // ns
  };
  Return (*init)() = nullptr;
  Return (*shutdown)() = nullptr;
  const char* (*error_string)(Return) = nullptr;
  Return (*by_bus_id)(const char*, Device*) = nullptr;
  Return (*clock)(Device, int, unsigned*) = nullptr;
  Return (*max_clock)(Device, int, unsigned*) = nullptr;
  Return (*applications_clock)(Device, int, unsigned*) = nullptr;
  Return (*default_applications_clock)(Device, int, unsigned*) = nullptr;
  Return (*power)(Device, unsigned*) = nullptr;
  Return (*power_limit)(Device, unsigned*) = nullptr;
  Return (*default_power_limit)(Device, unsigned*) = nullptr;
  Return (*temperature)(Device, int, unsigned*) = nullptr;
  Return (*reasons)(Device, unsigned long long*) = nullptr;
  Return (*violation)(Device, int, ViolationTime*) = nullptr;
  Return (*energy)(Device, unsigned long long*) = nullptr;
  Return (*persistence)(Device, int*) = nullptr;
};

namespace {

template <typename Function>
void require(void* library, const char* name, Function& function) {
  function = symbol<Function>(library, name);
  if (function == nullptr) throw std::runtime_error(std::string(kNvmlLibrary) + ": no entry point " + name);
}

// A query's value in its unit, or nothing where the device does not support it.
std::optional<double> unsigned_figure(Return result, unsigned value, double scale) {
  return result == kSuccess ? std::optional(static_cast<double>(value) * scale) : std::nullopt;
}

}  // namespace

NvmlDevice::NvmlDevice(const std::string& pci_bus_id, const std::string& library) {
  library_ = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library_ == nullptr) {
    const char* why = dlerror();
    throw std::runtime_error(library + ": " + (why != nullptr ? why : "cannot be loaded") +
                             " (NVML comes with the NVIDIA driver)");
  }
  auto api = std::make_unique<Api>();
  try {
    require(library_, "nvmlInit_v2", api->init);
    require(library_, "nvmlShutdown", api->shutdown);
    require(library_, "nvmlErrorString", api->error_string);
    require(library_, "nvmlDeviceGetHandleByPciBusId_v2", api->by_bus_id);
    require(library_, "nvmlDeviceGetClockInfo", api->clock);
    require(library_, "nvmlDeviceGetMaxClockInfo", api->max_clock);
    require(library_, "nvmlDeviceGetApplicationsClock", api->applications_clock);
    require(library_, "nvmlDeviceGetDefaultApplicationsClock", api->default_applications_clock);
    require(library_, "nvmlDeviceGetPowerUsage", api->power);
    require(library_, "nvmlDeviceGetEnforcedPowerLimit", api->power_limit);
    require(library_, "nvmlDeviceGetPowerManagementDefaultLimit", api->default_power_limit);
    require(library_, "nvmlDeviceGetTemperature", api->temperature);
    // The newer name of the same call; drivers before it export only the older one.
    api->reasons = symbol<decltype(api->reasons)>(library_, "nvmlDeviceGetCurrentClocksEventReasons");
    if (api->reasons == nullptr) require(library_, "nvmlDeviceGetCurrentClocksThrottleReasons", api->reasons);
    require(library_, "nvmlDeviceGetViolationStatus", api->violation);
    require(library_, "nvmlDeviceGetTotalEnergyConsumption", api->energy);
    require(library_, "nvmlDeviceGetPersistenceMode", api->persistence);
    if (const Return result = api->init(); result != kSuccess) {
      throw std::runtime_error(std::string("nvmlInit_v2: ") + api->error_string(result));
    }
    if (const Return result = api->by_bus_id(pci_bus_id.c_str(), &device_); result != kSuccess) {
      api->shutdown();
      throw std::runtime_error("nvmlDeviceGetHandleByPciBusId_v2(" + pci_bus_id + "): " + api->error_string(result));
    }
  } catch (...) {
    dlclose(library_);
    throw;
  }
  api_ = api.release();
}

NvmlDevice::~NvmlDevice() {
  static_cast<void>(api_->shutdown());  // nothing to do about a failed shutdown in a destructor
  delete api_;
  dlclose(library_);
}

GpuSample NvmlDevice::sample() const {
  GpuSample sample;
  unsigned value = 0;
  sample.sm_clock_mhz = unsigned_figure(api_->clock(device_, kClockSm, &value), value, 1.0);
  sample.memory_clock_mhz = unsigned_figure(api_->clock(device_, kClockMemory, &value), value, 1.0);
  sample.power_w = unsigned_figure(api_->power(device_, &value), value, 1e-3);
  sample.temperature_c = unsigned_figure(api_->temperature(device_, kTemperatureGpu, &value), value, 1.0);
  unsigned long long reasons = 0;
  if (api_->reasons(device_, &reasons) == kSuccess) sample.clock_event_reasons = reasons;
  for (std::size_t i = 0; i < kViolationCauseCount; ++i) {
    Api::ViolationTime time{};
    if (api_->violation(device_, nvml_perf_policy(kViolationCauses[i]), &time) == kSuccess) {
      sample.violation_s[i] = static_cast<double>(time.violation_time) * 1e-9;
    }
  }
  return sample;
}

reports::GpuClockRecord NvmlDevice::clock_settings() const {
  reports::GpuClockRecord record;
  int persistence = 0;
  if (api_->persistence(device_, &persistence) == kSuccess) record.persistence_mode = persistence != 0;
  unsigned value = 0;
  record.max_sm_clock_mhz = unsigned_figure(api_->max_clock(device_, kClockSm, &value), value, 1.0);
  record.max_memory_clock_mhz = unsigned_figure(api_->max_clock(device_, kClockMemory, &value), value, 1.0);
  record.applications_sm_clock_mhz = unsigned_figure(api_->applications_clock(device_, kClockSm, &value), value, 1.0);
  record.default_applications_sm_clock_mhz =
      unsigned_figure(api_->default_applications_clock(device_, kClockSm, &value), value, 1.0);
  record.power_limit_w = unsigned_figure(api_->power_limit(device_, &value), value, 1e-3);
  record.default_power_limit_w = unsigned_figure(api_->default_power_limit(device_, &value), value, 1e-3);
  return record;
}

std::optional<std::uint64_t> NvmlDevice::total_energy_mj() const {
  unsigned long long millijoules = 0;
  if (api_->energy(device_, &millijoules) != kSuccess) return std::nullopt;
  return millijoules;
}

}  // namespace ampbench::harness::detail
