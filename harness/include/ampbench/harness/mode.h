// A Mode is what differs between FP32, FP16 + GradScaler, BF16 and the ablations: the autocast
// dtype, whether a GradScaler runs, TF32, and the loss-divergence bound the mode is held to.
#pragma once

#include <c10/core/ScalarType.h>

#include <string>
#include <vector>

#include "ampbench/reports/report.h"

namespace ampbench::harness {

struct Mode {
  std::string name;
  std::string summary;
  c10::ScalarType compute_dtype = c10::ScalarType::Float;
  bool autocast = false;
  bool grad_scaler = false;
  bool tf32 = false;
  bool cuda_only = false;
  // Largest mean relative loss difference from FP32 (over the final window, see reports/stats.h)
  // that still counts as "within bound". fp16 has 10 mantissa bits, bf16 only 7, so bf16's is
  // looser; both are far above the run-to-run noise of the synthetic tasks.
  double divergence_bound = 0.0;
};

[[nodiscard]] const std::vector<Mode>& known_modes();
// Throws std::invalid_argument naming the unknown mode and listing the known ones.
[[nodiscard]] const Mode& find_mode(const std::string& name);
[[nodiscard]] bool is_reference_mode(const Mode& mode);  // fp32: what AMP modes are compared to
// What a run measures when no modes are named: fp32, fp16, bf16, and on a GPU also tf32 (on
// Ampere and later it changes the FP32 answer), the reference first.
[[nodiscard]] std::vector<std::string> default_modes(bool gpu);

}  // namespace ampbench::harness
