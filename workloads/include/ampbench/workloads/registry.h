// Maps workload names to factories; `ampbench list` prints it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ampbench/workloads/workload.h"

namespace ampbench::workloads {

struct WorkloadInfo {
  std::string name;
  std::string summary;
};

[[nodiscard]] const std::vector<WorkloadInfo>& known_workloads();

// Throws std::invalid_argument naming the unknown workload and listing the known ones.
[[nodiscard]] std::unique_ptr<Workload> make_workload(const std::string& name, const WorkloadOptions& options);

}  // namespace ampbench::workloads
