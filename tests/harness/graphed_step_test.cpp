// CUDA-graph execution: what holds on any host (the optimizer check, the static batch, the refusal
// of a graph without a GPU), and on a GPU that a graphed step trains as an eager one does: the same
// losses and GradScaler scales from the same weights on the same batches, as close as two eager
// runs are to each other (bit for bit where they repeat bit for bit).
#include "measure/graphed_step.h"

#include <ampbench/amp/fused_optimizers.h>
#include <ampbench/amp/grad_scaler.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "ampbench/harness/mode.h"
#include "ampbench/workloads/registry.h"
#include "machine/cuda_graph.h"
#include "measure/mode_session.h"

namespace {

using namespace ampbench;
using harness::detail::GraphedStep;
using harness::detail::require_capturable;
using harness::detail::TrainingStep;

TEST(GraphedStep, OnlyAFusedOptimizerCanBeCapturedAndTheRefusalNamesTheOneToUse) {
  torch::nn::Linear model(4, 2);
  torch::optim::AdamW adamw(model->parameters(), torch::optim::AdamWOptions(1e-3));
  try {
    require_capturable("mlp", adamw);
    FAIL() << "LibTorch's AdamW keeps its bias correction on the host";
  } catch (const std::invalid_argument& error) {
    const std::string message = error.what();
    EXPECT_EQ(message.rfind("workload 'mlp': its optimizer, torch::optim::AdamW, cannot be captured", 0), 0u)
        << message;
    EXPECT_NE(message.find("build it as ampbench::amp::FusedAdamW"), std::string::npos) << message;
  }
  torch::optim::SGD sgd(model->parameters(), torch::optim::SGDOptions(0.1));
  EXPECT_THROW(require_capturable("mlp", sgd), std::invalid_argument);
  amp::FusedAdamW fused(model->parameters(), torch::optim::AdamWOptions(1e-3));
  EXPECT_NO_THROW(require_capturable("mlp", fused));
}

// With a capturable optimizer asked for, every built-in workload steps a fused one (eager and
// graphed cells of a run then step alike); without, LibTorch's as before.
TEST(GraphedStep, TheBuiltInWorkloadsStepAFusedOptimizerWhenAskedForOne) {
  for (const auto& info : workloads::known_workloads()) {
    workloads::WorkloadOptions options;
    options.preset = workloads::Preset::kSeed;
    options.capturable_optimizer = true;
    auto capturable = workloads::make_workload(info.name, options)->make_optimizer();
    EXPECT_NE(dynamic_cast<amp::FusedOptimizer*>(capturable.get()), nullptr) << info.name;
    options.capturable_optimizer = false;
    auto plain = workloads::make_workload(info.name, options)->make_optimizer();
    EXPECT_EQ(dynamic_cast<amp::FusedOptimizer*>(plain.get()), nullptr) << info.name;
  }
}

TEST(GraphedStep, ABatchIsCopiedIntoTheStaticInputsInPlace) {
  workloads::Batch inputs{torch::zeros({2, 3}), torch::zeros({2})};
  const auto* input_storage = inputs.input.data_ptr<float>();
  const workloads::Batch next{torch::ones({2, 3}), torch::full({2}, 2.0)};
  harness::detail::copy_batch(inputs, next);
  EXPECT_EQ(inputs.input.data_ptr<float>(), input_storage);
  EXPECT_TRUE(torch::equal(inputs.input, next.input));
  EXPECT_TRUE(torch::equal(inputs.target, next.target));
}

TEST(GraphedStep, AGraphNeedsAGpu) {
  EXPECT_THROW(harness::detail::CudaGraph(c10::Device("cpu")), std::invalid_argument);
}

struct Training {
  std::vector<double> losses;
  std::vector<double> scales;  // after each step; empty without a scaler
};

// `steps` steps of `workload` in `mode` from the seed's weights, eager or graphed, reading every
// batch from static inputs either way.
Training train(const std::string& workload_name, const harness::Mode& mode, bool graphed, int steps) {
  const c10::Device device("cuda:0");
  workloads::WorkloadOptions options;
  options.preset = workloads::Preset::kSeed;
  options.device = device;
  options.capturable_optimizer = true;
  auto workload = workloads::make_workload(workload_name, options);
  auto optimizer = workload->make_optimizer();
  std::optional<amp::GradScaler> scaler;
  if (mode.grad_scaler) scaler.emplace(c10::DeviceType::CUDA);
  const TrainingStep step{*workload, *optimizer, scaler ? &*scaler : nullptr, mode, c10::DeviceType::CUDA};
  const auto first = workload->make_batch(0);
  workloads::Batch inputs{first.input.clone(), first.target.clone()};
  std::optional<GraphedStep> graph;
  if (graphed) graph.emplace(step, inputs, device);
  Training out;
  for (int index = 0; index < steps; ++index) {
    harness::detail::copy_batch(inputs, workload->make_batch(index));
    const auto loss = graph ? graph->run() : step.run(inputs, false);
    out.losses.push_back(loss.item<double>());
    if (scaler) out.scales.push_back(scaler->scale_on_device().item<double>());
  }
  return out;
}

double largest_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double largest = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) largest = std::max(largest, std::fabs(a[i] - b[i]));
  return largest;
}

TEST(GraphedStep, AGraphedStepTrainsAsAnEagerOneDoes) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "needs a CUDA GPU";
  constexpr int kSteps = 12;  // 2 eager, the capture's, then 9 replays
  for (const auto& info : workloads::known_workloads()) {
    for (const char* name : {"fp32", "fp16", "bf16"}) {
      const auto& mode = harness::find_mode(name);
      (void)harness::detail::apply_precision(mode);
      const auto eager = train(info.name, mode, false, kSteps);
      const auto again = train(info.name, mode, false, kSteps);
      const auto graphed = train(info.name, mode, true, kSteps);
      const auto label = info.name + "/" + name;
      const double eager_spread = largest_difference(eager.losses, again.losses);
      EXPECT_LE(largest_difference(eager.losses, graphed.losses), eager_spread) << label;
      EXPECT_EQ(graphed.scales, eager.scales) << label;  // the same steps skipped, the same scale after each
    }
  }
}

}  // namespace
