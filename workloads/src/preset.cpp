#include "ampbench/workloads/preset.h"

#include <stdexcept>

namespace ampbench::workloads {

const std::vector<PresetInfo>& known_presets() {
  static const std::vector<PresetInfo> presets{
      {Preset::kSeed, "seed", "the classic tutorials' sizes"},
      {Preset::kDefault, "default", "sized for a 2-core CPU: the whole default suite in about 2 minutes"},
      {Preset::kLarge, "large", "sized to keep a modern GPU busy"},
  };
  return presets;
}

const std::string& to_string(Preset preset) {
  for (const auto& info : known_presets()) {
    if (info.preset == preset) return info.name;
  }
  throw std::invalid_argument("preset " + std::to_string(static_cast<int>(preset)) + " has no name");
}

std::string preset_choices() {
  const auto& presets = known_presets();
  std::string text;
  for (std::size_t i = 0; i < presets.size(); ++i) {
    text += (i == 0 ? "" : i + 1 == presets.size() ? " or " : ", ") + presets[i].name;
  }
  return text;
}

Preset parse_preset(std::string_view name) {
  for (const auto& info : known_presets()) {
    if (info.name == name) return info.preset;
  }
  throw std::invalid_argument("unknown preset '" + std::string(name) + "' (" + preset_choices() + ")");
}

}  // namespace ampbench::workloads
