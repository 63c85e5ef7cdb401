// A Mode is what differs between FP32, FP16 + GradScaler, BF16 and the ablations: the autocast
// dtype, whether a GradScaler runs and TF32.
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
  // The whole step captured in a CUDA graph after warm-up and replayed (--graphs); the mode's name
  // is its eager twin's with reports::kGraphedSuffix.
  bool graphed = false;
};

// The eager modes; each also exists graphed ("bf16-graphed"), which find_mode knows.
[[nodiscard]] const std::vector<Mode>& known_modes();
// Throws std::invalid_argument naming the unknown mode and listing the known ones.
[[nodiscard]] const Mode& find_mode(const std::string& name);
// fp32 (or fp32-graphed): what AMP modes of the same execution are compared to.
[[nodiscard]] bool is_reference_mode(const Mode& mode);
// What a run measures when no modes are named: fp32, fp16, bf16, and on a GPU also tf32 (on
// Ampere and later it changes the FP32 answer), the reference first.
[[nodiscard]] std::vector<std::string> default_modes(bool gpu);
// The modes a run measures under --graphs: `eager` itself (off), each graphed instead (on), or the
// eager ones followed by each graphed (both), each list with its reference first as `eager` has it.
[[nodiscard]] std::vector<std::string> modes_with_graphs(const std::vector<std::string>& eager,
                                                         reports::GraphExecution graphs);

}  // namespace ampbench::harness
