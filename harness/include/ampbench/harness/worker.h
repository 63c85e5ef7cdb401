// The worker process. `ampbench run` measures each workload (and the GEMM peak) in a child process
// of its own executable, started with the one hidden command below, so that a crash, an abort or
// an out-of-memory kill loses only that work, a hung worker can be killed, and the parent never
// holds a GPU context. The task arrives as JSON on the child's stdin, progress goes out as
// prefixed lines on its stderr, and the result (or the error that stopped it) as JSON on fd 3.
#pragma once

#include <functional>

#include "ampbench/harness/workload_task.h"

namespace ampbench::harness {

// The hidden CLI command both sides agree on; the CLI registers it, the harness spawns it.
inline constexpr const char* kWorkerCommand = "cell-worker";
inline constexpr int kWorkerResultFd = 3;
// The worker's exit code when it cannot deliver a result (no fd 3: not started by ampbench run):
// the CLI's code for an internal error.
inline constexpr int kWorkerInternalError = 3;

// Child side. `inspect` sees each workload task before it runs (the CLI's fault-injection aid for
// its own tests); it may change the task or end the process. Returns the process's exit code: 0
// whenever a result was written, errors included; kWorkerInternalError when it could not be.
using WorkerTaskInspector = std::function<void(WorkloadTask&)>;
[[nodiscard]] int run_worker(const WorkerTaskInspector& inspect = {});

}  // namespace ampbench::harness
