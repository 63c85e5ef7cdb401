// Every replay pass of the profiled steps runs the same step indices from the same state: what
// CUPTI's user replay needs. First with recording fakes, then with a real workload on the CPU.
#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "measure/replayed_steps.h"
#include "measure/training_state_snapshot.h"
#include "training_replay_support.h"

namespace ampbench::harness {
namespace {

struct Recorder {
  std::vector<std::string> events;
  ReplayedSteps replay(std::int64_t first, std::int64_t steps) {
    return replay_same_steps(
        first, steps, [this](std::int64_t index) { events.push_back("step " + std::to_string(index)); },
        [this] { events.push_back("sync"); },
        [this]() -> RestoreState {
          events.push_back("snapshot");
          return [this] { events.push_back("restore"); };
        });
  }
};

// What profile_tensor_cores does: before_pass, then run_pass, once per pass.
void run_passes(const ReplayedSteps& replay, int passes) {
  for (int pass = 0; pass < passes; ++pass) {
    replay.before_pass();
    replay.run_pass();
  }
}

TEST(ReplayedSteps, EveryPassRunsTheSameIndicesFromTheSnapshot) {
  Recorder recorder;
  run_passes(recorder.replay(17, 3), 3);
  const std::vector<std::string> expected = {"snapshot", "step 17", "step 18", "step 19", "sync",  //
                                             "restore",  "step 17", "step 18", "step 19", "sync",  //
                                             "restore",  "step 17", "step 18", "step 19", "sync"};
  EXPECT_EQ(recorder.events, expected);
}

TEST(ReplayedSteps, NothingIsCopiedWhenNoPassRuns) {
  Recorder recorder;
  { const auto replay = recorder.replay(0, 3); }
  EXPECT_TRUE(recorder.events.empty());
}

TEST(ReplayedSteps, CopiesOfTheCallablesShareOneSnapshot) {
  Recorder recorder;
  const auto replay = recorder.replay(4, 1);
  const ReplayedSteps copy = replay;  // std::function copies, as a profiler may make
  replay.before_pass();
  copy.before_pass();
  EXPECT_EQ(recorder.events, (std::vector<std::string>{"snapshot", "restore"}));
}

TEST(ReplayedSteps, BadArgumentsAreRefused) {
  const auto step = [](std::int64_t) {};
  const auto sync = [] {};
  const auto snapshot = []() -> RestoreState { return [] {}; };
  EXPECT_THROW(static_cast<void>(replay_same_steps(0, 0, step, sync, snapshot)), std::invalid_argument);
  EXPECT_THROW(static_cast<void>(replay_same_steps(-1, 3, step, sync, snapshot)), std::invalid_argument);
  EXPECT_THROW(static_cast<void>(replay_same_steps(0, 3, {}, sync, snapshot)), std::invalid_argument);
  const auto no_restore = replay_same_steps(0, 1, step, sync, []() -> RestoreState { return {}; });
  EXPECT_THROW(no_restore.before_pass(), std::logic_error);
}

// The whole point: with the snapshot of the runner's training state, each pass trains on the same
// batches from the same weights, so every pass computes the same losses, bit for bit.
TEST(ReplayedSteps, ARealWorkloadComputesTheSameLossesInEveryPass) {
  testing_support::TinyTraining training;
  training.step(0);
  training.step(1);
  std::vector<std::vector<double>> losses_per_pass;
  const auto replay = replay_same_steps(
      2, 3, [&](std::int64_t index) { losses_per_pass.back().push_back(training.step(index)); }, [] {},
      [&]() -> RestoreState {
        auto state =
            std::make_shared<TrainingStateSnapshot>(training.workload->module(), *training.optimizer, &training.scaler);
        return [state] { state->restore(); };
      });
  for (int pass = 0; pass < 3; ++pass) {
    losses_per_pass.emplace_back();
    replay.before_pass();
    replay.run_pass();
  }
  ASSERT_EQ(losses_per_pass[0].size(), 3u);
  EXPECT_NE(losses_per_pass[0][0], losses_per_pass[0][1]);  // different batches within a pass
  EXPECT_EQ(losses_per_pass[1], losses_per_pass[0]);
  EXPECT_EQ(losses_per_pass[2], losses_per_pass[0]);
}

}  // namespace
}  // namespace ampbench::harness
