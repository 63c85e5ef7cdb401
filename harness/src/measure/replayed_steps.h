// The profiled steps of a cell as the tensor-core profiler replays them. CUPTI's user replay
// collects one part of the counters per pass and needs the same work in every pass, so each pass
// runs the same step indices (the same batches) from the same weights, optimizer and GradScaler
// state.
#pragma once

#include <cstdint>
#include <functional>

namespace ampbench::harness {

struct ReplayedSteps {
  std::function<void()> before_pass;  // before every pass, outside the profiled range
  std::function<void()> run_pass;     // the steps of one pass, finished on the device
};

// Restores what it captured; take_snapshot returns one.
using RestoreState = std::function<void()>;

// run_pass runs run_step(first_step) ... run_step(first_step + steps - 1), then finish_pass (wait for
// the device). before_pass calls take_snapshot the first time and the restore it returned every
// later time, so every pass starts from the state the first one started from, and nothing is
// copied when no pass ever runs (a CPU cell). Throws std::invalid_argument for steps < 1, a
// negative first_step or a missing callable.
[[nodiscard]] ReplayedSteps replay_same_steps(std::int64_t first_step, std::int64_t steps,
                                              std::function<void(std::int64_t)> run_step,
                                              std::function<void()> finish_pass,
                                              std::function<RestoreState()> take_snapshot);

}  // namespace ampbench::harness
