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

namespace {

// Each eager mode's graphed twin: the same arithmetic, captured once and replayed, on CUDA only.
const std::vector<Mode>& graphed_modes() {
  static const std::vector<Mode> modes = [] {
    std::vector<Mode> graphed;
    for (Mode mode : known_modes()) {
      mode.name = reports::graphed_mode_of(mode.name);
      mode.summary += "; the whole step replayed from a CUDA graph";
      mode.cuda_only = true;
      mode.graphed = true;
      graphed.push_back(std::move(mode));
    }
    return graphed;
  }();
  return modes;
}

}  // namespace

const Mode& find_mode(const std::string& name) {
  std::string known;
  for (const auto* modes : {&known_modes(), &graphed_modes()}) {
    for (const auto& mode : *modes) {
      if (mode.name == name) return mode;
    }
  }
  for (const auto& mode : known_modes()) known += (known.empty() ? "" : ", ") + mode.name;
  throw std::invalid_argument("unknown mode '" + name + "' (known: " + known + ", each also with " +
                              std::string(reports::kGraphedSuffix) + " on CUDA)");
}

bool is_reference_mode(const Mode& mode) { return mode.name == reports::reference_mode_for(mode.name); }

std::vector<std::string> modes_with_graphs(const std::vector<std::string>& eager, reports::GraphExecution graphs) {
  if (graphs == reports::GraphExecution::kOff) return eager;
  std::vector<std::string> modes;
  if (graphs == reports::GraphExecution::kBoth) modes = eager;
  for (const auto& name : eager) modes.push_back(reports::graphed_mode_of(name));
  return modes;
}

std::vector<std::string> default_modes(bool gpu) {
  if (gpu) return {"fp32", "tf32", "fp16", "bf16"};
  return {"fp32", "fp16", "bf16"};
}

}  // namespace ampbench::harness
