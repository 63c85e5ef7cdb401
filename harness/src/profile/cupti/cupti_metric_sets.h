// The CUPTI metrics ampbench reads to measure tensor-core use, chosen per GPU chip: the names of
// the tensor pipe's counters differ between architectures, so the set is a table keyed by chip
// family, checked against CUPTI's host API in tests/harness/cupti_metric_sets_test.cpp.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "profile/cupti/requires_cuda.h"

namespace ampbench::harness::cupti {

struct MetricRequest {
  std::string name;  // a full CUPTI metric name: base metric, rollup and submetric
  std::string unit;  // "percent", "instructions" or "cycles"
};

// The chips ampbench has a metric set for, named as CUPTI names them ("GA100", "AD102", ...).
[[nodiscard]] std::vector<std::string_view> chips_with_metric_sets();

// Chips CUPTI knows whose range profiler cannot run: older than Turing (compute capability 7.5).
[[nodiscard]] std::vector<std::string_view> chips_without_range_profiler();

// The metrics to request on `chip`. Throws std::invalid_argument "unsupported chip '<chip>' ..."
// for a chip not in the table; for one older than Turing the message says the range profiler
// needs compute capability 7.5.
[[nodiscard]] std::vector<MetricRequest> tensor_core_metric_set(std::string_view chip);

// Just the names of `requests`, in order: what CUPTI's calls take.
[[nodiscard]] std::vector<std::string> metric_names(const std::vector<MetricRequest>& requests);

}  // namespace ampbench::harness::cupti
