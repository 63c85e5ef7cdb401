// What one worker measures: every mode of one workload, timed interleaved in rounds, under the
// run's settings; and running it in this process. The task crosses to a worker process as JSON
// (the settings through reports' RunConfig codec).
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ampbench/reports/report.h"

namespace ampbench::harness {

// A data-parallel worker's place in its group of ranks (docs/distributed.md).
struct RankAssignment {
  std::int64_t rank = 0;
  std::int64_t world_size = 1;
  std::int64_t local_rank = 0;  // on its machine: which GPU it trains on
  std::string store_host;       // the run's rendezvous TCPStore
  std::int64_t store_port = 0;
  std::string group;           // this group's key prefix in the store: one process group per worker group
  std::string interface_host;  // the address Gloo listens on ("127.0.0.1" on one machine; empty: the host's name)
};

struct WorkloadTask {
  reports::RunConfig config;  // resolved: device "cpu" or "cuda:N", modes and workloads named
  std::string workload;
  std::vector<std::string> modes;  // the reference mode (fp32) first when it is run
  // Which of the workload's config.replicates worker processes this is. Each times its share of
  // the steps and time; only replicate 0 also audits precision and profiles tensor cores (the
  // same steps from the same seed would give the same answer again).
  std::int64_t replicate = 0;
  // Steps (0-based per mode, warm-up included) whose loss is multiplied by +inf before backward:
  // forces the non-finite gradients a GradScaler must skip. For tests and demonstrations.
  std::vector<std::int64_t> inject_overflow_steps;
  // Set in a worker of a data-parallel group: the same task on every rank, each with its own rank.
  std::optional<RankAssignment> rank;
};

void to_json(nlohmann::json& out, const RankAssignment& rank);
void from_json(const nlohmann::json& in, RankAssignment& rank);
void to_json(nlohmann::json& out, const WorkloadTask& task);
void from_json(const nlohmann::json& in, WorkloadTask& task);

// What a workload's worker is doing.
enum class WorkloadStage {
  kBuilding,       // a mode's model, optimizer and batches
  kWarmingUp,      // a mode's untimed steps
  kRounds,         // the timed rounds of every mode
  kProfiling,      // the time breakdown's profiled steps
  kNumerics,       // a mode's run of the numerics pass
  kNumericsFloor,  // FP32's floor run of the numerics pass
};
inline constexpr std::array<WorkloadStage, 6> kWorkloadStages{WorkloadStage::kBuilding, WorkloadStage::kWarmingUp,
                                                              WorkloadStage::kRounds,   WorkloadStage::kProfiling,
                                                              WorkloadStage::kNumerics, WorkloadStage::kNumericsFloor};
// "building", "warming up", "rounds", "profiling", "numerics", "numerics floor": the worker's
// progress message names the stage so.
[[nodiscard]] std::string_view to_string(WorkloadStage stage);
[[nodiscard]] std::optional<WorkloadStage> workload_stage_named(std::string_view name);

// Where a workload is; the CLI turns it into text (describe).
struct WorkloadProgress {
  WorkloadStage stage = WorkloadStage::kBuilding;
  std::string mode;  // the mode built, warmed up or trained by the numerics pass; empty in the others
  std::int64_t round = 0;
  std::int64_t timed_steps = 0;    // per mode, so far; in the numerics pass, this run's steps so far
  double elapsed_s = 0.0;          // in the timed rounds
  double time_cap_s = 0.0;         // for the timed rounds of all modes together
  std::int64_t planned_steps = 0;  // the numerics pass's steps per run; 0 in the other phases
};
using WorkloadProgressSink = std::function<void(const WorkloadProgress&)>;
// "building fp16", "warming up fp16", "rounds", "profiling", "numerics fp16", "numerics fp32 floor".
[[nodiscard]] std::string describe(const WorkloadProgress& progress);

// Runs the task here: builds every mode's model from the same seed, warms each up, times them in
// interleaved rounds until every interval over rounds is within max_noise (or a cap), then reads
// the meters and profiles. Returns one cell per mode, in the task's order. A mode that fails
// (while being built or in a step) is recorded as failed with its error and leaves the rotation;
// the others go on. Never throws.
[[nodiscard]] std::vector<reports::CellResult> run_workload(const WorkloadTask& task,
                                                            const WorkloadProgressSink& progress = {});

}  // namespace ampbench::harness
