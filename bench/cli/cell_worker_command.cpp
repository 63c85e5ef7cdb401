// `ampbench cell-worker`: internal, the child process that measures a workload (harness/worker.h).
#include <cstdlib>
#include <iostream>

#include "ampbench/harness/worker.h"
#include "commands.h"

namespace ampbench::cli {
namespace {

// Test aid for the CLI's own tests: AMPBENCH_ABORT_CELL=workload/mode makes any worker whose task
// includes that cell abort, as a crash in LibTorch would, to prove that only that cell is lost.
void abort_if_doomed(const harness::WorkloadTask& task) {
  const char* doomed = std::getenv("AMPBENCH_ABORT_CELL");
  if (doomed == nullptr) return;
  for (const auto& mode : task.modes) {
    if (task.workload + "/" + mode == doomed) {
      std::cerr << "aborting on purpose (AMPBENCH_ABORT_CELL=" << doomed << ")" << std::endl;
      std::abort();
    }
  }
}

}  // namespace

Action add_cell_worker_command(CLI::App& app) {
  // Hidden from --help: users never call it.
  auto* command = app.add_subcommand(harness::kWorkerCommand, "");
  command->group("");
  return [] { return harness::run_worker(abort_if_doomed); };
}

}  // namespace ampbench::cli
