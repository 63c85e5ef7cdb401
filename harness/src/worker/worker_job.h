// The messages of the worker protocol: what a worker process is asked to do (its stdin; the kinds'
// names are spelled here only), and what the parent reads back from a workload worker (its
// progress objects, its cells). The process mechanics are worker_process.h.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ampbench/harness/workload_task.h"
#include "worker/worker_process.h"

namespace ampbench::harness::detail {

enum class WorkerJob {
  kDeviceMemory,  // report the GPU memory a worker finds free (the memory preflight's)
  kGemmPeaks,     // measure the GEMM peaks (and report the allocator policy found)
  kWorkload,      // time a workload's modes
  kNumerics,      // run a workload's numerics pass
};

// {"kind": "workload" or "numerics", "task": task}.
[[nodiscard]] nlohmann::json job_message(WorkerJob job, const WorkloadTask& task);
// {"kind": "gemm_peaks", "device": device, "threads": threads}.
[[nodiscard]] nlohmann::json gemm_peaks_message(const std::string& device, int threads);
// {"kind": "device_memory", "device": device}.
[[nodiscard]] nlohmann::json device_memory_message(const std::string& device);
// The job a message asks for; throws std::runtime_error naming a kind it does not know.
[[nodiscard]] WorkerJob job_of(const nlohmann::json& message);

// A workload worker's progress, as it sends it: {"stage": "numerics", "mode": "fp16", "round", ...}.
[[nodiscard]] nlohmann::json progress_message(const WorkloadProgress& progress);
// Parent side, reading a workload worker: its progress object (throws std::runtime_error naming a
// stage it does not know), and its cells or why there are none (its error, an unreadable result,
// how it ended).
[[nodiscard]] WorkloadProgress progress_from_json(const nlohmann::json& in);
struct WorkerCells {
  std::optional<std::vector<reports::CellResult>> cells;
  std::string failure;
};
[[nodiscard]] WorkerCells cells_of(const WorkerOutcome& outcome);

// A cell of the task's that could not run, named as the run names its cells.
[[nodiscard]] reports::CellResult failed_cell(const WorkloadTask& task, const std::string& mode,
                                              const std::string& error);

}  // namespace ampbench::harness::detail
