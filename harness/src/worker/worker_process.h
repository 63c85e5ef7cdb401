// Private: the parent side of the worker protocol (ampbench/harness/worker.h): spawn, feed the
// task, pump progress, collect the result, and kill a worker that outlives its budget.
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ampbench/harness/workload_task.h"
#include "ampbench/reports/report.h"

namespace ampbench::harness::detail {

struct WorkerOutcome {
  std::optional<nlohmann::json> result;  // what the worker wrote on fd 3, when it exited cleanly
  std::string failure;                   // otherwise: how it ended ("killed by signal 6 (Aborted)")
  bool crashed = false;                  // ended by a signal of its own (not the watchdog's kill)
};

// The key of every task object that names the allocator policy the worker runs under: the parent
// starts it with the policy's environment and the worker applies and checks it (worker_allocator.h).
inline constexpr const char* kWorkerAllocatorKey = "allocator";

// Never throws for a failing worker. on_progress gets each progress object the worker printed.
[[nodiscard]] WorkerOutcome run_in_worker(const nlohmann::json& task, reports::AllocatorPolicy allocator,
                                          double timeout_s,
                                          const std::function<void(const nlohmann::json&)>& on_progress);

// Several workers at once that depend on each other (the ranks of a data-parallel group): one that
// crashes or ends without a result gets the others killed at once (they would only wait for it);
// once any has ended, the others get `straggler_s` more before they are killed. Progress comes
// from the first worker only. Outcomes in the order of `tasks`.
[[nodiscard]] std::vector<WorkerOutcome> run_in_worker_group(
    const std::vector<nlohmann::json>& tasks, reports::AllocatorPolicy allocator, double timeout_s, double straggler_s,
    const std::function<void(const nlohmann::json&)>& on_progress);

// Child side: one progress object as a line on stderr.
void emit_progress(const nlohmann::json& progress);

}  // namespace ampbench::harness::detail
