#include "ampbench/harness/mode.h"

#include <stdexcept>

#include "ampbench/reports/report.h"

namespace ampbench::harness {

const std::vector<Mode>& known_modes() {
  using c10::ScalarType;
  static const std::vector<Mode> modes{
      {.name = "fp32", .summary = "float32 throughout; the reference (TF32 off)"},
      {.name = "fp16",
       .summary = "autocast float16 + GradScaler (dynamic loss scaling)",
       .compute_dtype = ScalarType::Half,
       .autocast = true,
       .grad_scaler = true},
      {.name = "bf16",
       .summary = "autocast bfloat16, no scaler",
       .compute_dtype = ScalarType::BFloat16,
       .autocast = true},
      {.name = "fp16-noscale",
       .summary = "autocast float16 without a scaler: shows why scaling matters",
       .compute_dtype = ScalarType::Half,
       .autocast = true},
      {.name = "tf32",
       .summary = "float32 with TF32 matmul and convolutions (CUDA only)",
       .tf32 = true,
       .cuda_only = true},
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

bool is_reference_mode(const Mode& mode) { return mode.name == reports::kReferenceMode; }

std::vector<std::string> default_modes(bool gpu) {
  if (gpu) return {"fp32", "tf32", "fp16", "bf16"};
  return {"fp32", "fp16", "bf16"};
}

}  // namespace ampbench::harness
