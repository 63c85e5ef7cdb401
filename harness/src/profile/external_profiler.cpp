#include "profile/external_profiler.h"

#include <cstdlib>

#include "ampbench/reports/run_config.h"

namespace ampbench::harness {

EnvironmentLookup process_environment() {
  return [](std::string_view name) -> std::optional<std::string> {
    const char* value = std::getenv(std::string(name).c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  };
}

std::optional<std::string> injected_profiler_reason(const EnvironmentLookup& environment) {
  constexpr const char* kLeftToIt =
      ", which takes CUPTI itself; ampbench skips its own CUPTI collection so the two "
      "do not conflict (run without the profiler to get ampbench's tensor-core figures)";
  if (const auto session = environment("NSYS_PROFILING_SESSION_ID")) {
    return "skipped: Nsight Systems is profiling this process (NSYS_PROFILING_SESSION_ID=" + *session + ")" + kLeftToIt;
  }
  if (const auto library = environment("CUDA_INJECTION64_PATH"); library && !library->empty()) {
    return "skipped: a CUDA injection library is loaded into this process (CUDA_INJECTION64_PATH=" + *library +
           "; Nsight Systems, Nsight Compute and compute-sanitizer attach this way)" + kLeftToIt;
  }
  return std::nullopt;
}

std::optional<std::string> cupti_skip_reason(bool cupti_enabled, const EnvironmentLookup& environment) {
  if (!cupti_enabled)
    return "skipped: CUPTI collection was turned off for this run (" + reports::flag_of(&reports::RunConfig::cupti) +
           ")";
  return injected_profiler_reason(environment);
}

}  // namespace ampbench::harness
