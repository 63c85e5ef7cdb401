#include "ampbench/harness/mode.h"

#include <stdexcept>

namespace ampbench::harness {

const std::vector<Mode>& known_modes() {
  using c10::ScalarType;
  static const std::vector<Mode> modes{
      {"fp32", "float32 throughout; the reference (TF32 off)", ScalarType::Float, false, false, false, false, 0.0},
      {"fp16", "autocast float16 + GradScaler (dynamic loss scaling)", ScalarType::Half, true, true, false, false,
       0.05},
      {"bf16", "autocast bfloat16, no scaler", ScalarType::BFloat16, true, false, false, false, 0.10},
      {"fp16-noscale", "autocast float16 without a scaler: shows why scaling matters", ScalarType::Half, true, false,
       false, false, 0.05},
      {"tf32", "float32 with TF32 matmul and convolutions (CUDA only)", ScalarType::Float, false, false, true, true,
       0.02},
  };
  return modes;
}

const Mode& find_mode(const std::string& name) {
  std::string known;
  for (const auto& mode : known_modes()) {
    if (mode.name == name) return mode;
    known += (known.empty() ? "" : ", ") + mode.name;
  }
  throw std::invalid_argument("unknown mode '" + name + "' (known: " + known + ")");
}

bool is_reference_mode(const Mode& mode) { return mode.name == "fp32"; }

}  // namespace ampbench::harness
