// What differs between the environments of several runs, for the top of a comparison page: a
// reader must see that the baseline ran on another CPU, torch or setting before reading a change.
#include <algorithm>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "ampbench/reports/run_series.h"

namespace ampbench::reports {
namespace {

constexpr const char* kAbsent = "-";

std::string software_of(const Environment& env, const std::string& field) {
  if (field == "ampbench") return env.ampbench_version + " (" + env.git_revision + ")";
  if (field == "torch")
    return env.torch_version + (env.torch_cuda_version.empty() ? "" : " (CUDA " + env.torch_cuda_version + ")");
  if (field == "cuDNN") return env.cudnn_version.empty() ? kAbsent : env.cudnn_version;
  if (field == "CPU") return env.cpu_model;
  if (field == "CPU capability") return env.cpu_capability;
  if (field == "threads") return std::to_string(env.threads);
  return env.hostname;  // "host"
}

std::string device_model(const Environment& env, const std::string& device) {
  for (const auto& info : env.devices) {
    if (info.name == device)
      return info.model + (info.compute_capability.empty() ? "" : " (sm " + info.compute_capability + ")");
  }
  return kAbsent;
}

std::string precision_of(const ModeSettings& settings) {
  const auto on_off = [](bool value) { return value ? "on" : "off"; };
  return settings.compute_dtype + (settings.autocast ? ", autocast" : "") +
         (settings.grad_scaler ? ", GradScaler" : "") + ", TF32 matmul " + on_off(settings.tf32_matmul) +
         ", TF32 cuDNN " + on_off(settings.tf32_cudnn) + ", float32 matmul " + settings.float32_matmul_precision;
}

// Adds the field when the values it has in the runs that have it differ.
void add_if_different(std::vector<EnvironmentDifference>& out, const std::string& field,
                      std::vector<std::string> values) {
  std::set<std::string> present;
  for (const auto& value : values) {
    if (value != kAbsent) present.insert(value);
  }
  if (present.size() > 1) out.push_back({field, std::move(values)});
}

}  // namespace

std::vector<EnvironmentDifference> environment_differences(const std::vector<const Report*>& reports) {
  std::vector<EnvironmentDifference> out;
  for (const char* field : {"CPU", "CPU capability", "threads", "host", "torch", "cuDNN", "ampbench"}) {
    std::vector<std::string> values;
    for (const auto* report : reports) values.push_back(software_of(report->environment, field));
    add_if_different(out, field, values);
  }
  std::set<std::string> devices;
  for (const auto* report : reports) {
    for (const auto& device : report->environment.devices) {
      if (device.name != "cpu") devices.insert(device.name);
    }
  }
  for (const auto& device : devices) {
    std::vector<std::string> values;
    for (const auto* report : reports) values.push_back(device_model(report->environment, device));
    add_if_different(out, device, values);
  }
  // Each cell's precision settings, in the order cells first appear; a failed cell may not have
  // recorded its settings, so it counts as absent.
  // And how many steps each of its blocks left untimed: the first step after a switch was measured
  // dearer on an H200, so a run that timed it carries that cost and another does not.
  std::vector<CellKey> keys;
  std::map<CellKey, std::vector<std::string>> precision;
  std::map<CellKey, std::vector<std::string>> untimed;
  for (std::size_t run = 0; run < reports.size(); ++run) {
    for (const auto& cell : reports[run]->cells) {
      auto [found, added] = precision.emplace(key_of(cell), std::vector<std::string>(reports.size(), kAbsent));
      if (added) keys.push_back(found->first);
      auto& untimed_of_cell = untimed.try_emplace(found->first, reports.size(), kAbsent).first->second;
      if (cell.status != CellStatus::kOk) continue;
      found->second[run] = precision_of(cell.settings);
      if (cell.rounds) untimed_of_cell[run] = std::to_string(cell.rounds->untimed_steps_per_block);
    }
  }
  for (const auto& key : keys) add_if_different(out, key.label() + " precision", precision[key]);
  for (const auto& key : keys) add_if_different(out, key.label() + " untimed steps per block", untimed[key]);
  for (const auto& field : run_config_fields()) {
    std::vector<std::string> values;
    for (const auto* report : reports) values.push_back(field.write(report->config).dump());
    // An on/off setting by its name, its values being the setting's, not its flag's.
    add_if_different(out, "setting " + (field.flag_turns_off ? field.key + " (" + field.flag + ")" : field.flag),
                     values);
  }
  return out;
}

}  // namespace ampbench::reports
