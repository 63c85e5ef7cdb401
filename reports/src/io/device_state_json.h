// The device's state in report.json: a GPU's rounds (Rounds::device), a cell's energy, the run's
// energy meter and a GPU's clock settings, written and read back strictly.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "ampbench/reports/report.h"

namespace ampbench::reports::detail {

[[nodiscard]] nlohmann::json device_rounds_json(const DeviceRounds& device);
[[nodiscard]] nlohmann::json energy_json(const Energy& energy);
[[nodiscard]] nlohmann::json energy_meter_json(const EnergyMeterRecord& meter);
[[nodiscard]] nlohmann::json gpu_clocks_json(const GpuClockRecord& clocks);

// Each also checks that it holds one value per round of its cell (`rounds`).
[[nodiscard]] DeviceRounds read_device_rounds(const nlohmann::json& in, const std::string& path, std::size_t rounds);
[[nodiscard]] Energy read_energy(const nlohmann::json& in, const std::string& path, std::size_t rounds);
[[nodiscard]] EnergyMeterRecord read_energy_meter(const nlohmann::json& in, const std::string& path);
[[nodiscard]] GpuClockRecord read_gpu_clocks(const nlohmann::json& in, const std::string& path);

}  // namespace ampbench::reports::detail
