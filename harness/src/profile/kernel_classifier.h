// Decides from a CUDA kernel's name (mangled or demangled, as CUPTI or a profiler reports it)
// whether the kernel runs on tensor cores. The decision is only as good as the pattern list in
// kernel_classifier.cpp, so every verdict names the rule that made it.
#pragma once

#include <string_view>

namespace ampbench::harness {

struct KernelClassification {
  bool tensor_core = false;
  // The rule that decided, e.g. "mma-instruction-shape" or "xmma-cuda-core-fp32"; kNoRule when no
  // pattern matched (the kernel is then counted as not using tensor cores).
  std::string_view rule;
};

inline constexpr std::string_view kNoRule = "no-tensor-core-pattern";

[[nodiscard]] KernelClassification classify_kernel(std::string_view kernel_name);

}  // namespace ampbench::harness
