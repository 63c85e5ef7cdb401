// Tensor-core utilisation of a few training steps, read from the GPU's performance counters with
// CUPTI's range profiler. The steps run inside one user range and are replayed once per pass the
// chip's metric set needs; every failure comes back as an outcome with a reason, never a throw.
#pragma once

#include <cuda.h>  // CUcontext only: ampbench links neither libcuda nor cudart (CUPTI loads the driver)

#include <functional>
#include <string>
#include <vector>

#include "ampbench/reports/report.h"
#include "profile/cupti/requires_cuda.h"

namespace ampbench::harness::cupti {

struct TensorCoreOutcome {
  bool measured = false;
  std::string reason;  // why nothing was measured, on one line; empty when measured
  std::string chip;    // as CUPTI names it, once known
  std::vector<reports::TensorCoreMetric> metrics;
  int passes = 0;  // how many times run_profiled_steps ran
};

// Profiles `run_profiled_steps` on `context` (the primary CUcontext of device `device_index`, which
// the caller holds current). The callable must run the same work on every call (CUPTI's user replay
// needs a deterministic range) and must have finished its GPU work when it returns (synchronise
// the device). It is called once per replay pass, never when profiling cannot start;
// `before_each_pass`, if set, runs before each pass outside the profiled range, to put back the
// state the previous pass moved on. If either throws, profiling stops and the outcome says why.
// Profile only steps that are not also timed: replays and counters perturb timing. Values CUPTI
// evaluates as NaN or infinity make the outcome unavailable (see cupti/metric_values.h).
[[nodiscard]] TensorCoreOutcome profile_tensor_cores(CUcontext context, int device_index,
                                                     const std::function<void()>& run_profiled_steps,
                                                     const std::function<void()>& before_each_pass = {}) noexcept;

}  // namespace ampbench::harness::cupti
