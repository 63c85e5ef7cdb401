// `ampbench cell-worker`: internal, the child process that measures a workload (harness/worker.h).
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>

#include <unistd.h>

#include "ampbench/harness/worker.h"
#include "commands.h"

namespace ampbench::cli {
namespace {

// Test aids for the CLI's own tests, each read from the environment:
// - AMPBENCH_ABORT_CELL=workload/mode: any worker whose task includes that cell aborts, as a crash
//   in LibTorch would, to prove that only that cell is lost;
// - AMPBENCH_FAULTY_RANK=N: only that rank of a data-parallel group aborts (or, with
//   AMPBENCH_FAULT=hang, never starts), to prove the others fail within the timeout;
// - AMPBENCH_INJECT_OVERFLOW=rank:step[,step...]: that rank's loss is +inf on those steps, to prove
//   every rank's GradScaler skips them.
void inject_faults(harness::WorkloadTask& task) {
  const char* rank_text = std::getenv("AMPBENCH_FAULTY_RANK");
  const char* doomed = std::getenv("AMPBENCH_ABORT_CELL");
  const bool faulty_rank = rank_text != nullptr && task.rank && std::to_string(task.rank->rank) == rank_text;
  for (const auto& mode : task.modes) {
    if (doomed == nullptr || task.workload + "/" + mode != doomed || (rank_text != nullptr && !faulty_rank)) continue;
    const char* fault = std::getenv("AMPBENCH_FAULT");
    if (fault != nullptr && std::string(fault) == "hang") {
      std::cerr << "hanging on purpose (AMPBENCH_FAULT=hang)" << std::endl;
      for (;;) pause();
    }
    std::cerr << "aborting on purpose (AMPBENCH_ABORT_CELL=" << doomed << ")" << std::endl;
    std::abort();
  }
  const char* overflow = std::getenv("AMPBENCH_INJECT_OVERFLOW");
  if (overflow == nullptr || !task.rank) return;
  std::stringstream text(overflow);
  std::string rank;
  std::getline(text, rank, ':');
  if (rank != std::to_string(task.rank->rank)) return;
  for (std::string step; std::getline(text, step, ',');) task.inject_overflow_steps.push_back(std::stoll(step));
}

}  // namespace

Action add_cell_worker_command(CLI::App& app) {
  // Hidden from --help: users never call it.
  auto* command = app.add_subcommand(harness::kWorkerCommand, "");
  command->group("");
  return [] { return harness::run_worker(inject_faults); };
}

}  // namespace ampbench::cli
