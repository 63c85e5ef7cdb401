// Turns the values CUPTI evaluated for the profiled range into report metrics, or into the reason
// there are none: a NaN or infinity there is not a measurement but a sign that the counters were
// not collected as scheduled (most often DCGM's or another profiler's session holding them).
#pragma once

#include <string>
#include <vector>

#include "ampbench/reports/report.h"
#include "profile/cupti/cupti_metric_sets.h"
#include "profile/cupti/requires_cuda.h"

namespace ampbench::harness::cupti {

struct CounterMetrics {
  std::vector<reports::TensorCoreMetric> metrics;  // one per request, method "cupti-range-profiler"; empty if not
  std::string unavailable_reason;                  // empty when every value was finite
};

// Pairs requests[i] with values[i]. If any value is not finite, none is kept (they come from the
// same passes) and the reason names each such metric and how to free the counters from DCGM.
// Throws std::invalid_argument when the two lengths differ.
[[nodiscard]] CounterMetrics tensor_core_metrics_from(const std::vector<MetricRequest>& requests,
                                                      const std::vector<double>& values);

}  // namespace ampbench::harness::cupti
