#include "ampbench/history/testbed.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <set>
#include <type_traits>
#include <vector>

#include "ampbench/reports/text_format.h"
#include "fnv1a.h"

namespace ampbench::history {
namespace {

// A fact's values in their set order, comma-separated: "avx2,fma", "1,2".
template <typename T>
std::string joined(const std::set<T>& values) {
  std::vector<std::string> parts;
  for (const auto& value : values) {
    if constexpr (std::is_same_v<T, std::string>) {
      parts.push_back(value);
    } else {
      parts.push_back(std::to_string(value));
    }
  }
  return reports::joined(parts, ",");
}

// "AMD EPYC 9R14 96-Core Processor" -> "AMD-EPYC-9R14-96-Core": a name part without spaces.
std::string name_part(const std::string& text) {
  std::string part;
  for (const char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c)) != 0) {
      part += c;
    } else if (!part.empty() && part.back() != '-') {
      part += '-';
    }
    if (part.size() >= 24) break;
  }
  while (!part.empty() && part.back() == '-') part.pop_back();
  return part.empty() ? "unknown" : part;
}

}  // namespace

Testbed testbed_of(const reports::Report& report, const std::string& name) {
  const auto& environment = report.environment;
  std::set<std::string> flags(environment.cpu_flags.begin(), environment.cpu_flags.end());
  std::set<std::string> presets;
  std::set<std::string> devices;
  std::set<std::int64_t> ranks;
  for (const auto& cell : report.cells) {
    presets.insert(cell.preset);
    devices.insert(cell.device);
    ranks.insert(cell.ranks);
  }
  std::set<std::string> gpus;
  std::string gpu_model;
  for (const auto& device : environment.devices) {
    if (devices.count(device.name) != 0 && device.name != "cpu") {
      gpus.insert(device.name + " " + device.model + " (" + device.compute_capability + ")");
      if (gpu_model.empty()) gpu_model = device.model;
    }
  }
  Testbed testbed;
  testbed.facts = {
      {"cpu_model", environment.cpu_model},
      {"cpu_flags", joined(flags)},
      {"cpu_capability", environment.cpu_capability},
      {"gpus", gpus.empty() ? "none" : joined(gpus)},
      {"torch_version", environment.torch_version},
      {"torch_cuda_version", environment.torch_cuda_version},
      {"cudnn_version", environment.cudnn_version},
      {"threads", std::to_string(environment.threads)},
      {"allocator", environment.allocator ? environment.allocator->policy : "glibc (not recorded)"},
      {"presets", joined(presets)},
      {"ranks", joined(ranks)},
      {"devices", joined(devices)},
  };
  testbed.fingerprint = fingerprint_of(testbed.facts);
  testbed.name = !name.empty() ? name
                               : std::string(gpu_model.empty() ? "cpu-" : "cuda-") +
                                     name_part(gpu_model.empty() ? environment.cpu_model : gpu_model) + "-" +
                                     testbed.fingerprint.substr(0, 8);
  return testbed;
}

std::string fingerprint_of(const std::vector<std::pair<std::string, std::string>>& facts) {
  std::string canonical;
  for (const auto& [fact, value] : facts) canonical += fact + "=" + value + "\n";
  return detail::fnv1a_hex(canonical);
}

std::vector<FactDifference> differing_facts(const Testbed& testbed, const Testbed& run) {
  std::vector<FactDifference> out;
  if (testbed.fingerprint == run.fingerprint) return out;
  const auto value_in = [](const Testbed& side, const std::string& fact) -> std::string {
    for (const auto& [name, value] : side.facts) {
      if (name == fact) return value;
    }
    return "(none)";
  };
  std::vector<std::string> names;
  for (const auto& [name, value] : testbed.facts) names.push_back(name);
  for (const auto& [name, value] : run.facts) {
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  for (const auto& name : names) {
    const auto there = value_in(testbed, name);
    const auto here = value_in(run, name);
    if (there != here) out.push_back({name, there, here});
  }
  return out;
}

nlohmann::json facts_json(const Testbed& testbed) {
  auto facts = nlohmann::json::array();
  for (const auto& [name, value] : testbed.facts) facts.push_back({name, value});
  return facts;
}

}  // namespace ampbench::history
