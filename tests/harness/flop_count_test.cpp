// FLOPs of a workload that states none: counted from one forward, within 5% of the hand count for
// the example residual CNN (compiled into this test from examples/, registered as users do), and
// counting moves no BatchNorm statistic.
#include "measure/flop_count.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "ampbench/workloads/registry.h"

namespace {

using ampbench::harness::step_flops;

// examples/residual_cnn.cpp at batch 32: a 3x3 stem 3->16 and four 3x3 convs 16->16 on 32x32
// (2 x batch x out channels x pixels x in channels x 9 each), the fc 16->10; x3 for the backward.
double residual_cnn_hand_count(double batch) {
  const double pixels = 32.0 * 32.0;
  const double stem = 2.0 * batch * 16 * pixels * 3 * 9;
  const double block_convs = 4 * (2.0 * batch * 16 * pixels * 16 * 9);
  const double fc = 2.0 * batch * 16 * 10;
  return 3.0 * (stem + block_convs + fc);
}

TEST(FlopCount, TheExampleCnnIsCountedWithinFivePercentOfTheHandCount) {
  auto workload = ampbench::workloads::make_workload("residual_cnn", ampbench::workloads::WorkloadOptions{});
  ASSERT_FALSE(workload->flops_per_step().has_value());
  const auto figure = step_flops(*workload);
  EXPECT_EQ(figure.source, ampbench::reports::FlopSource::kCounted);
  const double hand = residual_cnn_hand_count(32);
  EXPECT_NEAR(figure.flops_per_step / hand, 1.0, 0.05) << figure.flops_per_step << " vs " << hand;
}

TEST(FlopCount, CountingLeavesTheModelAsItWas) {
  auto workload = ampbench::workloads::make_workload("residual_cnn", ampbench::workloads::WorkloadOptions{});
  std::vector<torch::Tensor> before;
  for (const auto& buffer : workload->module().buffers()) before.push_back(buffer.clone());
  (void)step_flops(*workload);
  EXPECT_TRUE(workload->module().is_training());
  const auto after = workload->module().buffers();
  ASSERT_EQ(after.size(), before.size());
  for (std::size_t i = 0; i < before.size(); ++i) EXPECT_TRUE(torch::equal(after[i], before[i])) << "buffer " << i;
}

TEST(FlopCount, AStatedFigureIsTheWorkloads) {
  auto workload = ampbench::workloads::make_workload("simplecnn", ampbench::workloads::WorkloadOptions{});
  const auto figure = step_flops(*workload);
  EXPECT_EQ(figure.source, ampbench::reports::FlopSource::kWorkload);
  EXPECT_DOUBLE_EQ(figure.flops_per_step, workload->flops_per_step().value());
}

}  // namespace
