// Private: one data-parallel group's cells from its ranks' own. Every rank ran the same steps (the
// decisions went through rank 0), so step i of a mode is step i on every rank.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ampbench/harness/workload_task.h"
#include "ampbench/reports/report.h"
#include "worker/worker_job.h"

namespace ampbench::harness::detail {

// What one rank sent back: its cells, or why there are none.
using RankResult = WorkerCells;

// A mode's cell: failed when it failed on any rank (naming the first such rank), else rank 0's
// cell with, per step, the slowest rank's time (a step ends when its last rank does) and
// all-reduce time, the mean of the ranks' losses (the loss of the combined batch), the largest
// memory, the group's samples, each rank's median step time, and whether every rank's GradScaler
// skipped the same steps (a cell whose ranks disagreed fails).
[[nodiscard]] std::vector<reports::CellResult> merge_ranks(const WorkloadTask& task,
                                                           const std::vector<RankResult>& ranks);

}  // namespace ampbench::harness::detail
