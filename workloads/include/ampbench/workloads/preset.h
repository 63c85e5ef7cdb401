// The sizes a workload comes in. Code switches on the enum; the names ("seed", "default",
// "large", "gpu") are for people and files: the --preset flag, a --config file and the report, which
// keep the name and are read back through parse_preset. The list lives here, once.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ampbench::workloads {

enum class Preset {
  kSeed,     // the classic AMP tutorials' sizes
  kDefault,  // sized for the 2-minute CPU suite (docs/running.md)
  kLarge,    // mid-sized (a BERT-large layer): launch-bound on a current datacenter GPU in AMP
  kGpu,      // compute-bound on a current datacenter GPU: LLM-width layers (docs/running.md)
};

struct PresetInfo {
  Preset preset;
  std::string name;
  std::string summary;  // one line for `ampbench list`
  // Steps of the numerics pass (divergence) when --numerics-steps is not given: enough for FP32 to
  // move well away from its start while still learning, at a cost the preset's suite can carry.
  std::int64_t numerics_steps = 0;
};

[[nodiscard]] const std::vector<PresetInfo>& known_presets();
[[nodiscard]] const std::string& to_string(Preset preset);
[[nodiscard]] const PresetInfo& preset_info(Preset preset);
// The preset a run uses when --preset is not given ("auto"): the one sized for its device.
inline constexpr const char* kAutoPreset = "auto";
[[nodiscard]] Preset preset_for_device(bool cuda);

// "seed, default, large or gpu": for --help and for errors.
[[nodiscard]] std::string preset_choices();
// Throws std::invalid_argument "unknown preset 'NAME' (seed, default, large or gpu)".
[[nodiscard]] Preset parse_preset(std::string_view name);

}  // namespace ampbench::workloads
