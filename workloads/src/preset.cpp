#include "ampbench/workloads/preset.h"

#include <stdexcept>

namespace ampbench::workloads {

const std::vector<PresetInfo>& known_presets() {
  static const std::vector<PresetInfo> presets{
      {Preset::kSeed, "seed", "the classic tutorials' sizes", 64},
      // 32: on a 2-core CPU without native float16 GEMM, fp16 steps cost 6-13x FP32's, and the
      // pass is held to 30% of the suite's time (docs/performance.md).
      {Preset::kDefault, "default", "sized for a 2-core CPU: the whole default suite in about 2 minutes", 32},
      {Preset::kLarge, "large", "mid-sized (a BERT-large layer); on a datacenter GPU its AMP steps are launch-bound",
       400},
      // 100: an FP32 step of the transformer is about 0.4 s on an H100-class GPU.
      {Preset::kGpu, "gpu", "compute-bound on a datacenter GPU: LLM-width layers; what a run on CUDA uses", 100},
  };
  return presets;
}

Preset preset_for_device(bool cuda) { return cuda ? Preset::kGpu : Preset::kDefault; }

const PresetInfo& preset_info(Preset preset) {
  for (const auto& info : known_presets()) {
    if (info.preset == preset) return info;
  }
  throw std::invalid_argument("preset " + std::to_string(static_cast<int>(preset)) + " is not known");
}

const std::string& to_string(Preset preset) { return preset_info(preset).name; }

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
