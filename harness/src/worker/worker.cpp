// The child side of the worker protocol (ampbench/harness/worker.h).
#include "ampbench/harness/worker.h"

#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <iterator>
#include <string>

#include "ampbench/reports/report_json.h"
#include "machine/gemm_peak.h"
#include "measure/numerics_pass.h"
#include "run/memory_preflight.h"
#include "worker/worker_allocator.h"
#include "worker/worker_job.h"
#include "worker/worker_process.h"

namespace ampbench::harness {
namespace {

// Before anything is measured, this process runs under the policy the parent started it for.
reports::AllocatorRecord apply_allocator(const nlohmann::json& task) {
  const auto name = task.at(detail::kWorkerAllocatorKey).get<std::string>();
  const auto policy = reports::parse_allocator_policy(name);
  if (!policy) throw std::runtime_error("the worker's task names an unknown allocator '" + name + "'");
  return detail::apply_allocator_policy(*policy);
}

nlohmann::json run_task(const nlohmann::json& task, const WorkerTaskInspector& inspect) {
  auto allocator = apply_allocator(task);
  const auto job = detail::job_of(task);
  if (job == detail::WorkerJob::kDeviceMemory) {
    const auto free_bytes = detail::free_device_bytes(task.at("device").get<std::string>());
    return {{"free_bytes", free_bytes ? nlohmann::json(*free_bytes) : nlohmann::json()}};
  }
  if (job == detail::WorkerJob::kGemmPeaks) {
    // The run's first worker also reports what the policy found, for the report's environment.
    allocator.page_fault_s = detail::measure_page_fault_s();
    return {{"gemm_peaks", measure_gemm_peaks(task.at("device").get<std::string>(), task.at("threads").get<int>())},
            {"allocator", allocator}};
  }
  auto workload = task.at("task").get<WorkloadTask>();
  if (inspect) inspect(workload);
  const WorkloadProgressSink emit = [](const WorkloadProgress& progress) {
    detail::emit_progress(detail::progress_message(progress));
  };
  if (job == detail::WorkerJob::kNumerics) return {{"numerics", run_numerics(workload, emit)}};
  return {{"cells", run_workload(workload, emit)}};
}

bool write_result(const nlohmann::json& result) {
  const std::string text = result.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t wrote = write(kWorkerResultFd, text.data() + done, text.size() - done);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) {
      std::cerr << "ampbench: internal error: the worker cannot write its result to fd " << kWorkerResultFd << ": "
                << strerror(errno) << "\n";
      return false;
    }
    done += static_cast<std::size_t>(wrote);
  }
  return true;
}

}  // namespace

int run_worker(const WorkerTaskInspector& inspect) {
  // A worker outliving its parent (killed, interrupted) would hold the machine for nothing.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  nlohmann::json result;
  try {
    const std::string text{std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>()};
    result = run_task(nlohmann::json::parse(text), inspect);
  } catch (const std::exception& error) {
    // The error travels in the result, not in whatever the process printed.
    result = {{"error", error.what()}};
  }
  return write_result(result) ? 0 : kWorkerInternalError;
}

}  // namespace ampbench::harness
