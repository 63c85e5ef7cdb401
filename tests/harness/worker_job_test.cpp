// The message a worker process reads from stdin: each job goes out and comes back as itself, its
// task intact, and a kind the worker does not know is refused by name.
#include "worker/worker_job.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace {

using ampbench::harness::WorkloadProgress;
using ampbench::harness::WorkloadStage;
using ampbench::harness::WorkloadTask;
using ampbench::harness::detail::gemm_peaks_message;
using ampbench::harness::detail::job_message;
using ampbench::harness::detail::job_of;
using ampbench::harness::detail::progress_from_json;
using ampbench::harness::detail::progress_message;
using ampbench::harness::detail::WorkerJob;

WorkloadTask sample_task() {
  WorkloadTask task;
  task.config.device = "cpu";
  task.config.modes = {"fp32", "bf16"};
  task.workload = "simplenet";
  task.modes = {"fp32", "bf16"};
  task.replicate = 2;
  task.inject_overflow_steps = {3, 5};
  return task;
}

TEST(WorkerJob, AWorkloadOrNumericsJobCarriesItsTask) {
  for (const auto job : {WorkerJob::kWorkload, WorkerJob::kNumerics}) {
    const auto message = nlohmann::json::parse(job_message(job, sample_task()).dump());
    EXPECT_EQ(job_of(message), job);
    const auto task = message.at("task").get<WorkloadTask>();
    EXPECT_EQ(task.workload, "simplenet");
    EXPECT_EQ(task.modes, (std::vector<std::string>{"fp32", "bf16"}));
    EXPECT_EQ(task.replicate, 2);
    EXPECT_EQ(task.inject_overflow_steps, (std::vector<std::int64_t>{3, 5}));
  }
  EXPECT_NE(job_message(WorkerJob::kWorkload, sample_task()), job_message(WorkerJob::kNumerics, sample_task()));
}

TEST(WorkerJob, TheGemmPeaksJobCarriesDeviceAndThreads) {
  const auto message = gemm_peaks_message("cuda:1", 8);
  EXPECT_EQ(job_of(message), WorkerJob::kGemmPeaks);
  EXPECT_EQ(message.at("device"), "cuda:1");
  EXPECT_EQ(message.at("threads"), 8);
  EXPECT_THROW((void)job_message(WorkerJob::kGemmPeaks, sample_task()), std::logic_error);
}

TEST(WorkerJob, AnUnknownKindIsRefusedByName) {
  auto message = job_message(WorkerJob::kWorkload, sample_task());
  message["kind"] = "workloads";
  try {
    (void)job_of(message);
    ADD_FAILURE() << "accepted";
  } catch (const std::runtime_error& error) {
    EXPECT_STREQ(error.what(), "the worker's task names an unknown kind 'workloads'");
  }
  message.erase("kind");
  EXPECT_THROW((void)job_of(message), nlohmann::json::exception);
}

// Progress crosses the pipe by its stage's name and comes back as the same stage; the CLI's text
// is made from it (describe), never decided by it.
TEST(WorkerJob, ProgressComesBackAsItsStage) {
  for (const auto stage : ampbench::harness::kWorkloadStages) {
    const WorkloadProgress sent{stage, "fp16", 3, 24, 1.5, 18.0, 48};
    const auto read = progress_from_json(progress_message(sent));
    EXPECT_EQ(read.stage, stage) << to_string(stage);
    EXPECT_EQ(read.mode, "fp16");
    EXPECT_EQ(read.round, 3);
    EXPECT_EQ(read.timed_steps, 24);
    EXPECT_EQ(read.planned_steps, 48);
  }
  EXPECT_EQ(describe(WorkloadProgress{WorkloadStage::kWarmingUp, "bf16"}), "warming up bf16");
  EXPECT_EQ(describe(WorkloadProgress{WorkloadStage::kRounds, ""}), "rounds");
  EXPECT_EQ(describe(WorkloadProgress{WorkloadStage::kNumericsFloor, "fp32"}), "numerics fp32 floor");
  auto message = progress_message(WorkloadProgress{WorkloadStage::kRounds, ""});
  message["stage"] = "timing";
  try {
    (void)progress_from_json(message);
    ADD_FAILURE() << "accepted";
  } catch (const std::runtime_error& error) {
    EXPECT_STREQ(error.what(), "the worker's progress names an unknown stage 'timing'");
  }
}

}  // namespace
