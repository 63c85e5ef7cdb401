#include "profile/cupti/cupti_metric_values.h"

#include <cmath>
#include <sstream>
#include <stdexcept>

namespace ampbench::harness::cupti {

CounterMetrics tensor_core_metrics_from(const std::vector<MetricRequest>& requests, const std::vector<double>& values) {
  if (requests.size() != values.size()) {
    throw std::invalid_argument("tensor_core_metrics_from: " + std::to_string(requests.size()) + " metrics but " +
                                std::to_string(values.size()) + " values");
  }
  CounterMetrics result;
  std::ostringstream non_finite;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    if (std::isfinite(values[i])) continue;
    non_finite << (non_finite.tellp() > 0 ? ", " : "") << requests[i].name << " = " << values[i];
  }
  if (non_finite.tellp() > 0) {
    result.unavailable_reason =
        "CUPTI evaluated non-finite counter values (" + non_finite.str() +
        "): the counters were most likely held by another profiler or by DCGM's profiling module; pause DCGM's "
        "with 'dcgmi profile --pause' for the run (and 'dcgmi profile --resume' after it), or stop the other tool";
    return result;
  }
  for (std::size_t i = 0; i < requests.size(); ++i) {
    result.metrics.push_back({requests[i].name, values[i], requests[i].unit, "cupti-range-profiler"});
  }
  return result;
}

}  // namespace ampbench::harness::cupti
