#include "machine/energy_meter.h"

#include <stdexcept>

#include "machine/energy_counter.h"
#include "machine/gpu_environment.h"
#include "machine/rapl_energy.h"

namespace ampbench::harness::detail {
namespace {

// NVML counts millijoules in 64 bits from the driver's load: it never wraps in practice.
EnergyMeter nvml_meter(const std::shared_ptr<NvmlDevice>& nvml) {
  if (!nvml->total_energy_mj()) {
    throw std::runtime_error(
        "NVML has no energy counter on this GPU (nvmlDeviceGetTotalEnergyConsumption needs "
        "Volta or later)");
  }
  auto total = std::make_shared<CumulativeEnergy>(1e-3, 0);
  return {"NVML total energy counter", kNvmlEnergyUpdateSeconds, [nvml, total] {
            total->add(*nvml->total_energy_mj());
            return total->joules();
          }};
}

EnergyMeter rapl_meter() {
  auto rapl = std::make_shared<RaplEnergyMeter>(find_rapl_domains());
  rapl->joules();  // the first reading: a file that cannot be read is refused here, not mid-run
  return {rapl->description(), kRaplEnergyUpdateSeconds, [rapl] { return rapl->joules(); }};
}

}  // namespace

std::shared_ptr<NvmlDevice> open_nvml(const c10::Device& device) {
  const auto bus_id = pci_bus_id(device);
  if (!bus_id) throw std::runtime_error("NVML: " + device.str() + " is not a CUDA GPU");
  return std::make_shared<NvmlDevice>(*bus_id);
}

EnergyMeter open_energy_meter(const c10::Device& device, const std::shared_ptr<NvmlDevice>& nvml) {
  if (device.is_cpu()) return rapl_meter();
  if (nvml == nullptr) return nvml_meter(open_nvml(device));
  return nvml_meter(nvml);
}

reports::EnergyMeterRecord energy_meter_record(const c10::Device& device) {
  reports::EnergyMeterRecord record;
  record.device = device.str();
  try {
    const auto meter = open_energy_meter(device, nullptr);
    meter.joules();
    record.status = reports::MeasurementStatus::kMeasured;
    record.meter = meter.description;
  } catch (const std::runtime_error& error) {
    record.reason = error.what();
  }
  return record;
}

}  // namespace ampbench::harness::detail
