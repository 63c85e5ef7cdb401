// Private: the phases of a training step as LibTorch's profiler and Nsight Systems see them.
// TrainingStep marks them (PhaseRange, nvtx_ranges.h) and the time breakdown reads them back
// (op_taxonomy.cpp): one spelling each, here.
#pragma once

#include <string>

namespace ampbench::harness::detail {

// What every ampbench profiler scope starts with: an op of that name is ampbench's, not LibTorch's.
inline constexpr const char* kScopePrefix = "ampbench::";
// The scope around one whole training step.
inline constexpr const char* kStepScope = "ampbench::step";

enum class StepPhase { kForward, kBackward, kUnscale, kOptimizerStep, kScalerUpdate };

// "forward", "backward", "unscale", "optimizer step", "scaler update": the NVTX range's name.
[[nodiscard]] constexpr const char* phase_name(StepPhase phase) {
  switch (phase) {
    case StepPhase::kForward:
      return "forward";
    case StepPhase::kBackward:
      return "backward";
    case StepPhase::kUnscale:
      return "unscale";
    case StepPhase::kOptimizerStep:
      return "optimizer step";
    case StepPhase::kScalerUpdate:
      return "scaler update";
  }
  return "";
}

// The profiler scope of a phase: "ampbench::" and its name.
[[nodiscard]] inline std::string phase_scope(StepPhase phase) { return std::string(kScopePrefix) + phase_name(phase); }

}  // namespace ampbench::harness::detail
