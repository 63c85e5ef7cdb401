// The whole of `ampbench run` below the command line, in two calls: plan_run() checks the settings
// against this machine (cheap; nothing is measured), run() measures and returns the report. The
// harness probes the environment, sets the threads, measures the GEMM peaks and runs each
// workload's modes interleaved in worker processes (config.replicates per workload, the workloads
// taking turns), then each workload's numerics pass (numerics_pass.h) in one more; the caller only
// parses, prints and writes.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>

#include "ampbench/harness/workload_task.h"
#include "ampbench/reports/report.h"

namespace ampbench::harness {

// This process's place when torchrun (or anything that sets its variables) started it: RANK,
// WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT; TORCHELASTIC_USE_AGENT_STORE=True when
// torchrun's agent serves the rendezvous store itself.
struct TorchrunRank {
  std::int64_t rank = 0;
  std::int64_t world_size = 1;
  std::int64_t local_rank = 0;
  std::string master_addr;
  std::int64_t master_port = 0;
  bool agent_store = false;
};

// From the environment: absent when WORLD_SIZE is not set. Throws reports::SettingError naming the
// variable that is missing or malformed.
[[nodiscard]] std::optional<TorchrunRank> torchrun_rank_from_environment();

struct RunPlan {
  reports::RunConfig config;  // resolved: device, workloads and modes named
  reports::Environment environment;
  std::optional<TorchrunRank> torchrun;  // started by torchrun with WORLD_SIZE > 1
  // Which preset "auto" became and why ("preset gpu: the device is cuda:0 ..."); empty when the
  // preset was named.
  std::string preset_choice;
};

// Probes the machine and resolves the settings against it: device "auto"/"cuda" to a device that
// exists, preset "auto" to the device's (default on a CPU, gpu on CUDA), empty workloads and modes to the defaults
// (TF32 added on GPUs), every name known, threads within 4x the hardware's; under torchrun, ranks from WORLD_SIZE. With
// several ranks on one machine and no --threads, each rank gets its share of the hardware threads. Throws
// reports::SettingError naming the flag or variable.
[[nodiscard]] RunPlan plan_run(reports::RunConfig config);

// Under torchrun, what every rank but 0 does instead of run(): trains its part of each group that
// rank 0 starts and sends its cells to rank 0, until rank 0 is done; `say` gets a line per group.
// Throws reports::SettingError when the rendezvous fails (no store, another world size). Returns
// how many of its groups failed on this rank.
[[nodiscard]] std::int64_t follow_rank_zero(const RunPlan& plan, const std::function<void(const std::string&)>& say);

// What run() is doing, for a progress display.
struct RunEvent {
  enum class Kind { kGemmPeakStarted, kGemmPeakMeasured, kWorkloadProgress, kNumericsFinished, kCellFinished };
  Kind kind = Kind::kWorkloadProgress;
  std::size_t workload_index = 0;  // 0-based, of workload_count
  std::size_t workload_count = 0;
  std::int64_t replicate = 0;  // 0-based, of replicate_count worker processes of this workload
  std::int64_t replicate_count = 1;
  std::string workload;
  WorkloadProgress progress;                  // kWorkloadProgress
  const reports::CellResult* cell = nullptr;  // kCellFinished
  double seconds = 0.0;                       // kGemmPeakMeasured, kNumericsFinished: how long it took
};
using RunObserver = std::function<void(const RunEvent&)>;

// Measures the plan. Never throws for a failing cell or worker: it is recorded as failed with its
// error and the run goes on.
[[nodiscard]] reports::Report run(const RunPlan& plan, const RunObserver& observe = {});

// Seconds after which a worker is killed and its cells recorded as timed out: --worker-timeout, or
// when 0, 120 s plus five time caps per mode (warm-up and rounds are each bounded by the cap).
[[nodiscard]] double worker_timeout_s(const reports::RunConfig& config, std::size_t modes);

}  // namespace ampbench::harness
