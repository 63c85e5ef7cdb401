// Turns the kernels a profiled section ran (name and duration, as the CUPTI activity API records
// them) into the share of kernel time spent in tensor-core kernels, with the top kernels and the
// verdict on each, so a report can show which kernels the share is made of. Kernel time is summed
// per kernel, so kernels that overlap on different streams each count in full: the share is of
// kernel time, not of wall time.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ampbench/reports/report.h"

namespace ampbench::harness {

struct KernelRecord {
  std::string name;
  std::uint64_t duration_ns = 0;
};

// All launches of one kernel name, summed.
struct KernelTotal {
  std::string name;
  std::uint64_t total_ns = 0;
  std::int64_t launches = 0;
  bool tensor_core = false;
  std::string_view rule;  // the classifier rule that decided (see kernel_classifier.h)
};

struct KernelTimeShare {
  std::uint64_t total_ns = 0;
  std::uint64_t tensor_core_ns = 0;
  double share = 0.0;                    // tensor_core_ns / total_ns; 0 when no kernel time was recorded
  std::int64_t kernel_count = 0;         // launches
  std::vector<KernelTotal> top_kernels;  // by total time, longest first
};

inline constexpr std::string_view kKernelTimeShareMetric = "tensor_core_kernel_time_share";
inline constexpr std::string_view kKernelTimeShareMethod = "cupti-activity-kernel-names";

// Classifies each distinct name once; keeps the `top` longest kernels (all when fewer).
[[nodiscard]] KernelTimeShare summarize_kernel_time(std::span<const KernelRecord> records, std::size_t top);

// The report's form: name kKernelTimeShareMetric, unit "fraction", method kKernelTimeShareMethod.
[[nodiscard]] reports::TensorCoreMetric to_tensor_core_metric(const KernelTimeShare& share);

}  // namespace ampbench::harness
