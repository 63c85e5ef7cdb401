// FusedSGD / FusedAdam / FusedAdamW: the same updates as torch::optim's optimizers, and with
// GradScaler a training step without a single host synchronisation. (Step-by-step agreement with
// Python's fused=True optimizers under torch.amp.GradScaler is grad_scaler_conformance_test.)
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <functional>
#include <limits>
#include <memory>
#include <sstream>

#include "ampbench/amp/fused_optimizers.h"
#include "ampbench/amp/grad_scaler.h"
#include "sync_counter.h"

namespace {

using ampbench::amp::FusedAdam;
using ampbench::amp::FusedAdamParamState;
using ampbench::amp::FusedAdamW;
using ampbench::amp::FusedSGD;
using ampbench::amp::GradScaler;
using ampbench::amp::StepOutcome;
using ampbench::amp::testing::SyncCounter;
constexpr float kInf = std::numeric_limits<float>::infinity();

torch::nn::Sequential make_model() {
  torch::manual_seed(7);
  return torch::nn::Sequential(torch::nn::Linear(5, 16), torch::nn::Tanh(), torch::nn::Linear(16, 3));
}

torch::Tensor loss_at(torch::nn::Sequential& model, int step) {
  torch::manual_seed(1000 + step);
  return torch::mse_loss(model->forward(torch::randn({8, 5})), torch::randn({8, 3}));
}

std::vector<torch::Tensor> snapshot(torch::nn::Sequential& model) {
  std::vector<torch::Tensor> out;
  for (const auto& p : model->parameters()) out.push_back(p.detach().clone());
  return out;
}

using OptimizerFactory = std::function<std::unique_ptr<torch::optim::Optimizer>(std::vector<torch::Tensor>)>;

struct Pair {
  const char* name;
  OptimizerFactory fused;
  OptimizerFactory reference;
};

const std::vector<Pair>& pairs() {
  static const std::vector<Pair> all = {
      {"sgd_momentum_nesterov",
       [](auto p) {
         return std::make_unique<FusedSGD>(p, torch::optim::SGDOptions(0.05).momentum(0.9).nesterov(true));
       },
       [](auto p) {
         return std::make_unique<torch::optim::SGD>(p, torch::optim::SGDOptions(0.05).momentum(0.9).nesterov(true));
       }},
      {"adam_weight_decay",
       [](auto p) { return std::make_unique<FusedAdam>(p, torch::optim::AdamOptions(0.01).weight_decay(0.01)); },
       [](auto p) {
         return std::make_unique<torch::optim::Adam>(p, torch::optim::AdamOptions(0.01).weight_decay(0.01));
       }},
      {"adamw_amsgrad",
       [](auto p) { return std::make_unique<FusedAdamW>(p, torch::optim::AdamWOptions(0.01).amsgrad(true)); },
       [](auto p) { return std::make_unique<torch::optim::AdamW>(p, torch::optim::AdamWOptions(0.01).amsgrad(true)); }},
  };
  return all;
}

class FusedOptimizer : public testing::TestWithParam<Pair> {};

// Without a scaler they are ordinary optimizers: the same trajectory as torch::optim's (to the
// last-bit rounding differences of a fused kernel vs per-op math).
TEST_P(FusedOptimizer, MatchesTorchOptimWithoutScaler) {
  auto fused_model = make_model();
  auto reference_model = make_model();
  auto fused = GetParam().fused(fused_model->parameters());
  auto reference = GetParam().reference(reference_model->parameters());
  for (int step = 0; step < 10; ++step) {
    for (auto [model, optimizer] :
         {std::pair{&fused_model, fused.get()}, std::pair{&reference_model, reference.get()}}) {
      optimizer->zero_grad();
      loss_at(*model, step).backward();
      optimizer->step();
    }
  }
  const auto got = snapshot(fused_model);
  const auto want = snapshot(reference_model);
  for (std::size_t p = 0; p < got.size(); ++p) {
    EXPECT_TRUE(torch::allclose(got[p], want[p], 1e-5, 1e-6))
        << "parameter " << p << ": max |diff| " << (got[p] - want[p]).abs().max().item<double>();
  }
}

// With a power-of-two scale the kernel's unscaling is exact, so the scaled run equals an
// unscaled control that leaves out the poisoned iteration; and the scaler takes no host sync.
// (The dispatcher's item() count is compared with the control's rather than with zero: on CPU,
// ATen's fused Adam kernel reads each step counter with item(), a read of host memory.)
TEST_P(FusedOptimizer, ScaledStepsNeedNoHostSyncAndSkipOnInf) {
  constexpr int kIterations = 8;
  constexpr int kPoisoned = 3;
  auto scaled_model = make_model();
  auto control_model = make_model();
  auto scaled = GetParam().fused(scaled_model->parameters());
  auto control = GetParam().fused(control_model->parameters());
  GradScaler scaler(c10::DeviceType::CPU, {.init_scale = 1024.0, .growth_interval = 2});
  SyncCounter counter;
  for (int step = 0; step < kIterations; ++step) {
    const auto scaled_start = counter.count();
    scaled->zero_grad();
    scaler.scale(loss_at(scaled_model, step)).backward();
    if (step == kPoisoned) {
      torch::NoGradGuard no_grad;
      scaled_model->parameters()[2].mutable_grad().view(-1)[0] = kInf;
    }
    EXPECT_EQ(scaler.step(*scaled), StepOutcome::kDecidedOnDevice);
    scaler.update();
    const auto scaled_items = counter.count() - scaled_start;
    if (step != kPoisoned) {
      const auto control_start = counter.count();
      control->zero_grad();
      loss_at(control_model, step).backward();
      control->step();
      EXPECT_EQ(scaled_items, counter.count() - control_start) << "item() calls the scaler added at step " << step;
    }
  }
  EXPECT_EQ(scaler.host_syncs(), 0);

  const auto got = snapshot(scaled_model);
  const auto want = snapshot(control_model);
  for (std::size_t p = 0; p < got.size(); ++p) {
    EXPECT_TRUE(torch::equal(got[p], want[p])) << "parameter " << p << "\n" << got[p] - want[p];
  }
  const auto telemetry = scaler.telemetry();
  ASSERT_EQ(telemetry.size(), static_cast<std::size_t>(kIterations));
  for (int step = 0; step < kIterations; ++step) EXPECT_EQ(telemetry[step].skipped, step == kPoisoned) << step;
}

// The optimizer state survives torch::save / torch::load and the next step continues the same.
TEST_P(FusedOptimizer, SaveAndLoadRoundTrip) {
  auto model = make_model();
  auto optimizer = GetParam().fused(model->parameters());
  for (int step = 0; step < 3; ++step) {
    optimizer->zero_grad();
    loss_at(model, step).backward();
    optimizer->step();
  }
  std::stringstream stream;
  torch::save(*optimizer, stream);
  auto copy_model = make_model();
  {
    torch::NoGradGuard no_grad;
    for (std::size_t p = 0; p < model->parameters().size(); ++p) {
      copy_model->parameters()[p].copy_(model->parameters()[p]);
    }
  }
  auto copy = GetParam().fused(copy_model->parameters());
  torch::load(*copy, stream);
  for (auto [m, o] : {std::pair{&model, optimizer.get()}, std::pair{&copy_model, copy.get()}}) {
    o->zero_grad();
    loss_at(*m, 3).backward();
    o->step();
  }
  const auto got = snapshot(copy_model);
  const auto want = snapshot(model);
  for (std::size_t p = 0; p < got.size(); ++p) EXPECT_TRUE(torch::equal(got[p], want[p])) << "parameter " << p;
}

std::string pair_name(const testing::TestParamInfo<Pair>& info) { return info.param.name; }
void PrintTo(const Pair& pair, std::ostream* out) { *out << pair.name; }
INSTANTIATE_TEST_SUITE_P(Kinds, FusedOptimizer, testing::ValuesIn(pairs()), pair_name);

// A skipped step must not count: Adam's bias correction depends on the step counter.
TEST(FusedAdam, SkippedStepDoesNotAdvanceTheStepCounter) {
  auto model = make_model();
  FusedAdam optimizer(model->parameters(), torch::optim::AdamOptions(0.01));
  GradScaler scaler(c10::DeviceType::CPU);
  for (int step = 0; step < 3; ++step) {
    optimizer.zero_grad();
    scaler.scale(loss_at(model, step)).backward();
    if (step == 1) {
      torch::NoGradGuard no_grad;
      model->parameters()[0].mutable_grad().view(-1)[0] = std::nanf("");
    }
    (void)scaler.step(optimizer);
    scaler.update();
  }
  const auto& state =
      static_cast<const FusedAdamParamState&>(*optimizer.state().at(model->parameters()[1].unsafeGetTensorImpl()));
  EXPECT_EQ(state.step().item<float>(), 2.0f);
}

TEST(FusedOptimizers, RejectBadOptionsAndSparseGradients) {
  auto model = make_model();
  EXPECT_THROW(FusedAdam(model->parameters(), torch::optim::AdamOptions(-1.0)), c10::ValueError);
  EXPECT_THROW(FusedAdamW(model->parameters(), torch::optim::AdamWOptions(0.1).betas({0.9, 1.0})), c10::ValueError);
  EXPECT_THROW(FusedSGD(model->parameters(), torch::optim::SGDOptions(0.1).nesterov(true)), c10::ValueError);

  torch::nn::Embedding embedding(torch::nn::EmbeddingOptions(10, 4).sparse(true));
  FusedSGD optimizer(embedding->parameters(), torch::optim::SGDOptions(0.1));
  embedding->forward(torch::tensor({1, 2})).sum().backward();
  try {
    optimizer.step();
    ADD_FAILURE() << "sparse gradient accepted";
  } catch (const c10::ValueError& error) {
    EXPECT_NE(std::string(error.what()).find("FusedSGD does not support sparse gradients"), std::string::npos);
  }
}

}  // namespace
