// What a worker process is asked to do: the message its stdin carries. The kinds' names are
// spelled here only; the parent builds messages and the worker reads them through these.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "ampbench/harness/workload_task.h"

namespace ampbench::harness::detail {

enum class WorkerJob {
  kGemmPeaks,  // measure the GEMM peaks (and report the allocator policy found)
  kWorkload,   // time a workload's modes
  kNumerics,   // run a workload's numerics pass
};

// {"kind": "workload" or "numerics", "task": task}.
[[nodiscard]] nlohmann::json job_message(WorkerJob job, const WorkloadTask& task);
// {"kind": "gemm_peaks", "device": device, "threads": threads}.
[[nodiscard]] nlohmann::json gemm_peaks_message(const std::string& device, int threads);
// The job a message asks for; throws std::runtime_error naming a kind it does not know.
[[nodiscard]] WorkerJob job_of(const nlohmann::json& message);

}  // namespace ampbench::harness::detail
