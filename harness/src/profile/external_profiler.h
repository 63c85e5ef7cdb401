// Whether ampbench may use CUPTI in this process. CUPTI serves one profiling client at a time, and
// its known issues say an application that calls CUPTI itself cannot be profiled by Nsight Systems
// or Nsight Compute; so when one of them (or another CUDA injection tool) is attached, ampbench
// leaves CUPTI to it and records why its own tensor-core collection was skipped.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace ampbench::harness {

// The value of an environment variable, or nullopt when it is not set.
using EnvironmentLookup = std::function<std::optional<std::string>(std::string_view name)>;

// The environment of this process (std::getenv).
[[nodiscard]] EnvironmentLookup process_environment();

// Why ampbench must not use CUPTI in an environment like `environment`, or nullopt when nothing
// says a profiler is attached. Looks at CUDA_INJECTION64_PATH (how the CUDA driver loads Nsight
// Systems', Nsight Compute's and compute-sanitizer's injection libraries) and
// NSYS_PROFILING_SESSION_ID (set by `nsys profile` in the processes it profiles). An NVTX injection
// alone (NVTX_INJECTION64_PATH) does not count: it records ranges and leaves CUPTI alone.
[[nodiscard]] std::optional<std::string> injected_profiler_reason(const EnvironmentLookup& environment);

// Why ampbench's CUPTI collection (range-profiler counters and activity records) is skipped, or
// nullopt when it may run: `cupti_enabled` false (the caller turned it off, e.g. `--no-cupti`)
// first, then injected_profiler_reason(environment).
[[nodiscard]] std::optional<std::string> cupti_skip_reason(bool cupti_enabled, const EnvironmentLookup& environment);

}  // namespace ampbench::harness
