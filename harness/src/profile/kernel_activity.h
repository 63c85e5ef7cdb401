// Records every kernel a section of code runs on the GPU through the CUPTI activity API and
// reports the share of kernel time spent in tensor-core kernels (see kernel_time_share.h).
// Built only with the CUDA toolkit (library ampbench_kernel_activity); any CUPTI failure, such as
// no GPU or no driver, is an "unavailable" outcome with the reason, never an exception or a crash.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>

#include "profile/kernel_time_share.h"

namespace ampbench::harness {

struct KernelActivityOutcome {
  std::optional<KernelTimeShare> measured;  // set when the recording worked
  std::string unavailable_reason;           // one line, when it did not
};

// Enables CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, runs `section`, flushes and sums the kernels'
// durations. `section` runs only when the recording started (its steps would measure nothing
// otherwise) and must leave the device synchronized: the collector does not link the CUDA runtime,
// so it cannot wait for kernels still running. One recording at a time per process; an exception
// from `section` switches the recording off and propagates.
[[nodiscard]] KernelActivityOutcome record_kernel_activity(const std::function<void()>& section,
                                                           std::size_t top_kernels = 10);

}  // namespace ampbench::harness
