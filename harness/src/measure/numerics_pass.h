// The numerics pass (reports::Numerics): what divergence is computed from, apart from timing.
// Every mode of a workload trains the same fixed number of steps from the same initial weights on
// the same batches, fresh ones never used twice, and is evaluated every few steps in float32 on
// held-out batches no mode trains on; FP32 trains a second time with the data order reversed, the
// noise floor. Nothing here is timed except the pass's own cost, which the report states.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "ampbench/harness/workload_task.h"
#include "ampbench/workloads/workload.h"

namespace ampbench::harness {

// Evaluations per pass after the one at step 0, and the held-out batches each one averages.
inline constexpr std::int64_t kNumericsEvaluations = 16;
inline constexpr std::int64_t kNumericsEvalBatches = 2;
// Held-out batches are make_batch(kFirstHeldOutBatch + j): no training index comes near it.
inline constexpr std::int64_t kFirstHeldOutBatch = std::int64_t{1} << 40;

// 0, every, 2 every, ..., steps: kNumericsEvaluations evaluations after step 0 (fewer when there
// are fewer steps), the last one always after the final step.
[[nodiscard]] std::vector<std::int64_t> numerics_eval_steps(std::int64_t steps);

// A mode's Numerics before it runs: its steps, evaluations and held-out batches, no curves yet.
// A pass that fails keeps them, so the report says what was planned.
[[nodiscard]] reports::Numerics planned_numerics(std::int64_t steps);

using WorkloadFactory = std::function<std::unique_ptr<workloads::Workload>(const workloads::WorkloadOptions&)>;

// Runs the pass for the task's modes, config.numerics_steps steps each; returns one Numerics per
// mode in the task's order, the reference mode's with its floor run. A mode whose pass throws gets
// the error in its Numerics and the others go on; without the reference mode in the task there is
// nothing to compare with and nothing runs (empty result). `make` builds the workload (the
// registry's factory by default; tests bring their own).
[[nodiscard]] std::vector<reports::Numerics> run_numerics(const WorkloadTask& task,
                                                          const WorkloadProgressSink& progress = {},
                                                          const WorkloadFactory& make = {});

}  // namespace ampbench::harness
