#include "profile/kernel_time_share.h"

#include <algorithm>
#include <unordered_map>

#include "profile/kernel_classifier.h"

namespace ampbench::harness {

KernelTimeShare summarize_kernel_time(std::span<const KernelRecord> records, std::size_t top) {
  // Grouping by name first classifies each name once: a training step launches the same few
  // dozen kernels thousands of times, and the classifier runs a list of regexes.
  std::unordered_map<std::string_view, KernelTotal> by_name;
  for (const auto& record : records) {
    auto& total = by_name[record.name];
    total.total_ns += record.duration_ns;
    ++total.launches;
  }

  KernelTimeShare summary;
  std::vector<KernelTotal> totals;
  totals.reserve(by_name.size());
  for (auto& [name, total] : by_name) {
    const auto verdict = classify_kernel(name);
    total.name = std::string(name);
    total.tensor_core = verdict.tensor_core;
    total.rule = verdict.rule;
    summary.total_ns += total.total_ns;
    if (total.tensor_core) summary.tensor_core_ns += total.total_ns;
    summary.kernel_count += total.launches;
    totals.push_back(std::move(total));
  }
  if (summary.total_ns > 0) {
    summary.share = static_cast<double>(summary.tensor_core_ns) / static_cast<double>(summary.total_ns);
  }

  // Ties broken by name so the report does not depend on hash order.
  std::sort(totals.begin(), totals.end(), [](const KernelTotal& a, const KernelTotal& b) {
    return a.total_ns != b.total_ns ? a.total_ns > b.total_ns : a.name < b.name;
  });
  totals.resize(std::min(top, totals.size()));
  summary.top_kernels = std::move(totals);
  return summary;
}

reports::TensorCoreMetric to_tensor_core_metric(const KernelTimeShare& share) {
  return {std::string(kKernelTimeShareMetric), share.share, "fraction", std::string(kKernelTimeShareMethod)};
}

}  // namespace ampbench::harness
