// Private: the run's data-parallel groups, seen from the process that owns the run (rank 0: the
// `ampbench run --ranks N` process, or rank 0 under torchrun) and from the other ranks under
// torchrun. One rendezvous TCPStore serves the whole run; each group (a workload's worker
// processes on every rank, for one replicate) is a process group of its own under a key prefix.
#pragma once

#include <torch/csrc/distributed/c10d/Store.hpp>

#include <functional>
#include <string>
#include <vector>

#include "ampbench/harness/run.h"
#include "ampbench/harness/workload_task.h"
#include "ampbench/reports/report.h"

namespace ampbench::harness::detail {

class RankGroups {
 public:
  // Opens the store (serving it unless torchrun's agent does or this is not rank 0) and checks that
  // every rank came with the same world size. Throws reports::SettingError naming the variable or
  // flag: port in use, no store at MASTER_ADDR:MASTER_PORT, another world size, a rank missing.
  explicit RankGroups(const RunPlan& plan);

  // Rank 0: the task as one group on every rank, its cells merged (rank_merge.h). Never throws.
  [[nodiscard]] std::vector<reports::CellResult> run(const WorkloadTask& task, const WorkloadProgressSink& sink);
  // Rank 0: tells the other ranks that there are no more groups.
  void finish();
  // Any other rank: trains each group rank 0 starts until finish(). Returns how many failed here.
  [[nodiscard]] std::int64_t follow(const std::function<void(const std::string&)>& say);

 private:
  [[nodiscard]] WorkloadTask rank_task(const WorkloadTask& task, std::int64_t rank, std::int64_t group) const;

  RunPlan plan_;
  std::string host_;  // where the ranks reach the store
  std::int64_t port_ = 0;
  c10::intrusive_ptr<c10d::Store> store_;
  std::int64_t next_group_ = 0;
};

}  // namespace ampbench::harness::detail
