// GradScaler's errors (each names the misuse or the bad input) and its host-sync budget, which
// is checked against the dispatcher's own record of syncs (sync_counter.h).
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <functional>
#include <limits>
#include <string_view>

#include "ampbench/amp/grad_scaler.h"
#include "expect_error.h"
#include "sync_counter.h"

namespace {

using ampbench::amp::GradScaler;
using ampbench::amp::StepOutcome;
using ampbench::amp::testing::expect_error;
using ampbench::amp::testing::SyncCounter;

struct OneModel {
  torch::nn::Linear model{3, 2};
  torch::optim::SGD optimizer{model->parameters(), torch::optim::SGDOptions(0.1)};
  GradScaler scaler{c10::DeviceType::CPU};

  void backward(float poison = 0.0f) {
    optimizer.zero_grad();
    const auto loss = model(torch::ones({4, 3})).pow(2).mean();
    scaler.scale(loss).backward();
    if (poison != 0.0f) {
      torch::NoGradGuard no_grad;
      model->weight.mutable_grad()[0][0] = poison;
    }
  }
};

TEST(GradScalerMisuse, SecondUnscaleInOneIterationThrows) {
  OneModel s;
  s.backward();
  s.scaler.unscale_(s.optimizer);
  expect_error([&] { s.scaler.unscale_(s.optimizer); },
               "unscale_() has already been called on this optimizer since the last update()");
  EXPECT_EQ(s.scaler.step(s.optimizer), StepOutcome::kStepped);  // the state machine still allows the step
  s.scaler.update();
  s.backward();
  s.scaler.unscale_(s.optimizer);  // and a new iteration starts clean
}

TEST(GradScalerMisuse, UnscaleAfterStepThrows) {
  OneModel s;
  s.backward();
  ASSERT_EQ(s.scaler.step(s.optimizer), StepOutcome::kStepped);
  expect_error([&] { s.scaler.unscale_(s.optimizer); }, "unscale_() is being called after step()");
}

TEST(GradScalerMisuse, SecondStepInOneIterationThrows) {
  OneModel s;
  s.backward();
  ASSERT_EQ(s.scaler.step(s.optimizer), StepOutcome::kStepped);
  expect_error([&] { (void)s.scaler.step(s.optimizer); }, "step() has already been called since the last update()");
}

TEST(GradScalerMisuse, StepUnscaleOrUpdateBeforeScaleThrow) {
  OneModel s;
  s.model(torch::ones({4, 3})).sum().backward();  // gradients exist, but nothing was scaled
  expect_error([&] { (void)s.scaler.step(s.optimizer); }, "step() called before scale()");
  expect_error([&] { s.scaler.unscale_(s.optimizer); }, "unscale_() called before scale()");
  expect_error([&] { s.scaler.update(); }, "update() called before scale()");
}

TEST(GradScalerMisuse, StepWithoutGradientsThrows) {
  OneModel s;
  (void)s.scaler.scale(torch::ones({}));  // scaled, but no backward reached the optimizer
  expect_error([&] { (void)s.scaler.step(s.optimizer); }, "No inf checks were recorded for this optimizer");
}

TEST(GradScalerMisuse, UpdateWithoutStepThrows) {
  OneModel s;
  s.backward();
  expect_error([&] { s.scaler.update(); }, "No inf checks were recorded prior to update()");
}

TEST(GradScalerBadInput, ScalingANonFloatingTensorThrows) {
  GradScaler scaler(c10::DeviceType::CPU);
  expect_error([&] { (void)scaler.scale(torch::ones({2}, torch::kLong)); },
               "expected a floating-point loss or output, got a tensor of dtype Long");
  expect_error([&] { (void)scaler.scale({torch::ones({1}), torch::ones({1}, torch::kBool)}); }, "dtype Bool");
  EXPECT_THROW((void)scaler.scale(torch::ones({2}, torch::kInt)), c10::TypeError);
}

TEST(GradScalerBadInput, OutputOnAnotherDeviceTypeThrows) {
  GradScaler scaler(c10::DeviceType::CPU);
  expect_error([&] { (void)scaler.scale(torch::ones({2}, torch::device(torch::kMeta))); },
               "this scaler is for cpu but the output is on meta");
}

TEST(GradScalerBadInput, UnsupportedDeviceTypeThrows) {
  expect_error([] { GradScaler scaler(c10::DeviceType::XPU); }, "device type 'xpu' is not supported");
  expect_error([] { GradScaler scaler(c10::DeviceType::Meta); }, "device type 'meta'");
  EXPECT_THROW((void)GradScaler(c10::DeviceType::HIP), c10::NotImplementedError);
  // Disabled, the device is never used: no error (as PyTorch).
  EXPECT_FALSE(GradScaler(c10::DeviceType::XPU, {.enabled = false}).is_enabled());
}

TEST(GradScalerBadInput, CudaScalerWithoutCudaDisablesItselfAsPyTorch) {
  if (torch::cuda::is_available()) {
    GTEST_SKIP() << "CUDA is available here";
  }
  GradScaler scaler;  // default device type: CUDA
  EXPECT_FALSE(scaler.is_enabled());
}

TEST(GradScalerBadInput, BadFactorsThrow) {
  expect_error([] { GradScaler s(c10::DeviceType::CPU, {.growth_factor = 1.0}); },
               "growth_factor must be > 1.0, got 1");
  expect_error([] { GradScaler s(c10::DeviceType::CPU, {.backoff_factor = 1.5}); },
               "backoff_factor must be < 1.0, got 1.5");
}

TEST(GradScalerBadInput, Fp16GradientsAreRefused) {
  torch::nn::Linear model(3, 2);
  model->to(torch::kHalf);
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.1));
  GradScaler scaler(c10::DeviceType::CPU);
  scaler.scale(model(torch::ones({4, 3}, torch::kHalf)).sum()).backward();
  expect_error([&] { scaler.unscale_(optimizer); }, "Attempting to unscale FP16 gradients");
}

TEST(GradScalerBadInput, LoadStateDictNamesTheMissingOrMistypedKey) {
  GradScaler source(c10::DeviceType::CPU);
  GradScaler target(c10::DeviceType::CPU, {.init_scale = 8.0});
  const std::vector<std::string> keys = {"scale", "growth_factor", "backoff_factor", "growth_interval",
                                         "_growth_tracker"};
  for (const auto& key : keys) {
    auto missing = source.state_dict();
    ASSERT_EQ(missing.erase(key), 1u);
    expect_error([&] { target.load_state_dict(missing); }, "missing key '" + key + "'");
    auto mistyped = source.state_dict();
    mistyped.insert_or_assign(key, c10::IValue("not a number"));
    expect_error([&] { target.load_state_dict(mistyped); }, "key '" + key + "' must be a");
  }
  auto fractional = source.state_dict();
  fractional.insert_or_assign("growth_interval", c10::IValue(2.5));
  expect_error([&] { target.load_state_dict(fractional); }, "key 'growth_interval' must be an int, got Double");
  expect_error([&] { target.load_state_dict(GradScaler(c10::DeviceType::CPU, {.enabled = false}).state_dict()); },
               "the state dict is empty");
  EXPECT_EQ(target.get_scale(), 8.0);  // every failed load left the target as it was
}

// --- host syncs -----------------------------------------------------------------------------

TEST(GradScalerHostSyncs, OneSyncPerStepAndNoneInScaleUnscaleOrUpdate) {
  OneModel s;
  SyncCounter counter;
  {
    OneModel probe;  // the counter sees item(): a control that it works at all
    (void)probe.model->weight.sum().item<float>();
    ASSERT_EQ(counter.count(), 1);
  }
  const std::int64_t before = counter.count();
  constexpr int kIterations = 10;
  for (int i = 0; i < kIterations; ++i) {
    s.backward(i == 4 ? std::numeric_limits<float>::infinity() : 0.0f);
    s.scaler.unscale_(s.optimizer);
    EXPECT_EQ(counter.count() - before, 2 * i) << "forward, backward, scale, unscale_: no sync";
    torch::nn::utils::clip_grad_norm_(s.model->parameters(), 1.0);  // user code: syncs once
    EXPECT_EQ(s.scaler.step(s.optimizer), i != 4 ? StepOutcome::kStepped : StepOutcome::kSkipped);
    s.scaler.update();
  }
  // The whole loop: one clip (the user's) and one scaler sync per iteration, nothing else.
  EXPECT_EQ(counter.count() - before, 2 * kIterations);
  EXPECT_EQ(s.scaler.host_syncs(), kIterations);

  // The whole telemetry history comes back in one device -> host copy (a copy, not an item():
  // on CPU the dispatcher shows no _local_scalar_dense for it).
  const auto syncs = s.scaler.host_syncs();
  const auto records = s.scaler.telemetry();
  EXPECT_EQ(records.size(), static_cast<std::size_t>(kIterations));
  EXPECT_EQ(s.scaler.host_syncs(), syncs + 1);
  EXPECT_EQ(counter.count() - before, 2 * kIterations);
}

TEST(GradScalerHostSyncs, TwoOptimizersCostOneSyncEach) {
  OneModel a;
  torch::nn::Linear other(3, 2);
  torch::optim::Adam adam(other->parameters(), torch::optim::AdamOptions(0.01));
  SyncCounter counter;
  for (int i = 0; i < 5; ++i) {
    a.optimizer.zero_grad();
    adam.zero_grad();
    const auto loss = (a.model(torch::ones({4, 3})) * other(torch::ones({4, 3}))).mean();
    a.scaler.scale(loss).backward();
    EXPECT_EQ(a.scaler.step(a.optimizer), StepOutcome::kStepped);
    EXPECT_EQ(a.scaler.step(adam), StepOutcome::kStepped);
    a.scaler.update();
  }
  EXPECT_EQ(counter.count(), 10);
  EXPECT_EQ(a.scaler.host_syncs(), 10);
}

}  // namespace
