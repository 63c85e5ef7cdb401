#include "measure/replayed_steps.h"

#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

namespace ampbench::harness {

ReplayedSteps replay_same_steps(std::int64_t first_step, std::int64_t steps, std::function<void(std::int64_t)> run_step,
                                std::function<void()> finish_pass, std::function<RestoreState()> take_snapshot) {
  if (steps < 1) throw std::invalid_argument("replay_same_steps: steps must be >= 1, got " + std::to_string(steps));
  if (first_step < 0) {
    throw std::invalid_argument("replay_same_steps: first_step must be >= 0, got " + std::to_string(first_step));
  }
  if (!run_step || !finish_pass || !take_snapshot) {
    throw std::invalid_argument("replay_same_steps: run_step, finish_pass and take_snapshot are all required");
  }
  // Shared by both callables, which the profiler may copy.
  auto restore = std::make_shared<RestoreState>();
  ReplayedSteps replay;
  replay.before_pass = [restore, take_snapshot = std::move(take_snapshot)] {
    if (*restore) {
      (*restore)();
    } else {
      *restore = take_snapshot();
      if (!*restore) throw std::logic_error("replay_same_steps: take_snapshot returned no way to restore the state");
    }
  };
  replay.run_pass = [first_step, steps, run_step = std::move(run_step), finish_pass = std::move(finish_pass)] {
    for (std::int64_t index = first_step; index < first_step + steps; ++index) run_step(index);
    finish_pass();
  };
  return replay;
}

}  // namespace ampbench::harness
