#include "worker_job.h"

#include <array>
#include <stdexcept>
#include <utility>

namespace ampbench::harness::detail {
namespace {

constexpr std::array<std::pair<WorkerJob, const char*>, 3> kJobNames{
    {{WorkerJob::kGemmPeaks, "gemm_peaks"}, {WorkerJob::kWorkload, "workload"}, {WorkerJob::kNumerics, "numerics"}}};

const char* name_of(WorkerJob job) {
  for (const auto& [known, name] : kJobNames) {
    if (known == job) return name;
  }
  throw std::logic_error("a worker job without a name");
}

}  // namespace

nlohmann::json job_message(WorkerJob job, const WorkloadTask& task) {
  if (job == WorkerJob::kGemmPeaks) throw std::logic_error("the GEMM peaks take no workload task");
  return {{"kind", name_of(job)}, {"task", task}};
}

nlohmann::json gemm_peaks_message(const std::string& device, int threads) {
  return {{"kind", name_of(WorkerJob::kGemmPeaks)}, {"device", device}, {"threads", threads}};
}

WorkerJob job_of(const nlohmann::json& message) {
  const auto kind = message.at("kind").get<std::string>();
  for (const auto& [job, name] : kJobNames) {
    if (kind == name) return job;
  }
  throw std::runtime_error("the worker's task names an unknown kind '" + kind + "'");
}

}  // namespace ampbench::harness::detail
