#include "worker/worker_job.h"

#include <array>
#include <stdexcept>
#include <utility>

#include "ampbench/reports/report_json.h"

namespace ampbench::harness::detail {
namespace {

constexpr std::array<std::pair<WorkerJob, const char*>, 4> kJobNames{{{WorkerJob::kDeviceMemory, "device_memory"},
                                                                      {WorkerJob::kGemmPeaks, "gemm_peaks"},
                                                                      {WorkerJob::kWorkload, "workload"},
                                                                      {WorkerJob::kNumerics, "numerics"}}};

const char* name_of(WorkerJob job) {
  for (const auto& [known, name] : kJobNames) {
    if (known == job) return name;
  }
  throw std::logic_error("a worker job without a name");
}

}  // namespace

nlohmann::json job_message(WorkerJob job, const WorkloadTask& task) {
  if (job == WorkerJob::kGemmPeaks || job == WorkerJob::kDeviceMemory) {
    throw std::logic_error("the GEMM peaks and the device memory take no workload task");
  }
  return {{"kind", name_of(job)}, {"task", task}};
}

nlohmann::json gemm_peaks_message(const std::string& device, int threads) {
  return {{"kind", name_of(WorkerJob::kGemmPeaks)}, {"device", device}, {"threads", threads}};
}

nlohmann::json device_memory_message(const std::string& device) {
  return {{"kind", name_of(WorkerJob::kDeviceMemory)}, {"device", device}};
}

WorkerJob job_of(const nlohmann::json& message) {
  const auto kind = message.at("kind").get<std::string>();
  for (const auto& [job, name] : kJobNames) {
    if (kind == name) return job;
  }
  throw std::runtime_error("the worker's task names an unknown kind '" + kind + "'");
}

nlohmann::json progress_message(const WorkloadProgress& progress) {
  return {
      {"stage", to_string(progress.stage)},     {"mode", progress.mode},           {"round", progress.round},
      {"timed_steps", progress.timed_steps},    {"elapsed_s", progress.elapsed_s}, {"time_cap_s", progress.time_cap_s},
      {"planned_steps", progress.planned_steps}};
}

WorkloadProgress progress_from_json(const nlohmann::json& in) {
  WorkloadProgress progress;
  const auto stage = in.at("stage").get<std::string>();
  const auto named = workload_stage_named(stage);
  if (!named) throw std::runtime_error("the worker's progress names an unknown stage '" + stage + "'");
  progress.stage = *named;
  progress.mode = in.at("mode").get<std::string>();
  progress.round = in.value("round", std::int64_t{0});
  progress.timed_steps = in.value("timed_steps", std::int64_t{0});
  progress.elapsed_s = in.value("elapsed_s", 0.0);
  progress.time_cap_s = in.value("time_cap_s", 0.0);
  progress.planned_steps = in.value("planned_steps", std::int64_t{0});
  return progress;
}

WorkerCells cells_of(const WorkerOutcome& outcome) {
  WorkerCells cells;
  if (!outcome.result) {
    cells.failure = outcome.failure;
  } else if (outcome.result->contains("error")) {
    cells.failure = outcome.result->at("error").get<std::string>();
  } else {
    try {
      cells.cells = outcome.result->at("cells").get<std::vector<reports::CellResult>>();
    } catch (const std::exception& error) {
      cells.failure = std::string("unreadable cell result: ") + error.what();
    }
  }
  return cells;
}

reports::CellResult failed_cell(const WorkloadTask& task, const std::string& mode, const std::string& error) {
  reports::CellResult cell;
  cell.workload = task.workload;
  cell.mode = mode;
  cell.device = task.config.device;
  cell.preset = task.config.preset;
  cell.ranks = task.rank ? task.rank->world_size : 1;
  cell.status = reports::CellStatus::kFailed;
  cell.error = error;
  return cell;
}

}  // namespace ampbench::harness::detail
