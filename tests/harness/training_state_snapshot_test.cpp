// After snapshot -> other steps -> restore, the next step does bit for bit what it did right after
// the snapshot: same loss, same weights, same optimizer moments, same loss scale.
#include <gtest/gtest.h>

#include <stdexcept>

#include "measure/training_state_snapshot.h"
#include "training_replay_support.h"

namespace ampbench::harness {
namespace {

using testing_support::all_equal;
using testing_support::TinyTraining;

TEST(TrainingStateSnapshot, RestoreMakesTheNextStepRepeatBitForBit) {
  TinyTraining training;
  training.step(0);
  training.step(1);  // AdamW has moments now, and the scale has grown twice
  TrainingStateSnapshot snapshot(training.workload->module(), *training.optimizer, &training.scaler);

  const double first_loss = training.step(2);
  const auto first_parameters = training.parameters();
  const double first_scale = training.scaler.get_scale();
  training.step(3);
  training.step(4);
  ASSERT_FALSE(all_equal(training.parameters(), first_parameters));  // the state did move on
  ASSERT_NE(training.scaler.get_scale(), first_scale);

  snapshot.restore();
  EXPECT_EQ(training.step(2), first_loss);
  EXPECT_TRUE(all_equal(training.parameters(), first_parameters));
  EXPECT_EQ(training.scaler.get_scale(), first_scale);

  snapshot.restore();  // as often as needed: once per replay pass
  EXPECT_EQ(training.step(2), first_loss);
  EXPECT_TRUE(all_equal(training.parameters(), first_parameters));
}

// Adam's state is created by its first step; a restore to before it must drop that state, or the
// replayed step would run with moments and a step count it never had.
TEST(TrainingStateSnapshot, OptimizerStateCreatedAfterTheSnapshotIsDropped) {
  TinyTraining training;
  TrainingStateSnapshot snapshot(training.workload->module(), *training.optimizer, &training.scaler);
  ASSERT_TRUE(training.optimizer->state().empty());
  const double first_loss = training.step(0);
  const auto first_parameters = training.parameters();
  training.step(1);

  snapshot.restore();
  EXPECT_TRUE(training.optimizer->state().empty());
  EXPECT_EQ(training.step(0), first_loss);
  EXPECT_TRUE(all_equal(training.parameters(), first_parameters));
}

struct WithRunningMean : torch::nn::Module {
  WithRunningMean() {
    weight = register_parameter("weight", torch::ones({4}));
    running_mean = register_buffer("running_mean", torch::zeros({4}));
  }
  torch::Tensor weight;
  torch::Tensor running_mean;
};

TEST(TrainingStateSnapshot, BuffersComeBackAndAModelWithoutScalerWorks) {
  WithRunningMean module;
  torch::optim::SGD optimizer(module.parameters(), torch::optim::SGDOptions(0.1).momentum(0.9));
  TrainingStateSnapshot snapshot(module, optimizer, nullptr);
  module.running_mean.add_(3.0);
  {
    const torch::NoGradGuard no_grad;
    module.weight.mul_(2.0);
  }
  snapshot.restore();
  EXPECT_TRUE(torch::equal(module.running_mean, torch::zeros({4})));
  EXPECT_TRUE(torch::equal(module.weight, torch::ones({4})));
}

TEST(TrainingStateSnapshot, AModuleThatGrewAParameterIsRefusedByName) {
  WithRunningMean module;
  torch::optim::SGD optimizer(module.parameters(), torch::optim::SGDOptions(0.1));
  TrainingStateSnapshot snapshot(module, optimizer, nullptr);
  module.register_parameter("extra", torch::zeros({2}));
  try {
    snapshot.restore();
    FAIL() << "expected std::logic_error";
  } catch (const std::logic_error& error) {
    EXPECT_NE(std::string(error.what()).find("parameters"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace ampbench::harness
