// GradNormRecorder: the recorded norm is torch's norm of the unscaled gradients (with and without
// a GradScaler, before and after unscale_), a skipped step records a non-finite norm, and
// recording adds no host synchronisation to a step (the dispatcher's count of item() calls, per
// step, with plain and fused optimizers). Also GradScaler::pending_inv_scale, which it relies on.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>

#include "ampbench/amp/fused_optimizers.h"
#include "ampbench/amp/grad_norm_recorder.h"
#include "ampbench/amp/grad_scaler.h"
#include "expect_error.h"
#include "sync_counter.h"

namespace {

using ampbench::amp::GradNormRecorder;
using ampbench::amp::GradScaler;
using ampbench::amp::StepOutcome;
using ampbench::amp::testing::expect_error;
using ampbench::amp::testing::SyncCounter;
constexpr auto kCpu = c10::DeviceType::CPU;
constexpr float kInf = std::numeric_limits<float>::infinity();

struct Net {
  torch::nn::Sequential model{torch::nn::Linear(5, 7), torch::nn::Tanh(), torch::nn::Linear(7, 3)};
  torch::Tensor loss(int step) {
    torch::manual_seed(step);
    return torch::mse_loss(model->forward(torch::randn({6, 5})), torch::randn({6, 3}));
  }
};

Net make_net() {
  torch::manual_seed(7);
  return Net{};
}

std::vector<torch::Tensor> grads_of(const Net& net) {
  std::vector<torch::Tensor> grads;
  for (const auto& p : net.model->parameters()) grads.push_back(p.grad().detach().clone());
  return grads;
}

// torch.nn.utils.get_total_norm's formula: the norm of the per-tensor norms.
double total_norm(const std::vector<torch::Tensor>& grads) {
  std::vector<torch::Tensor> norms;
  for (const auto& g : grads) norms.push_back(torch::linalg_vector_norm(g, 2, {}, false, {}));
  return torch::linalg_vector_norm(torch::stack(norms), 2, {}, false, {}).item<double>();
}

// The same norm as one vector, summed in another order: an independent check of the formula.
double flat_norm(const std::vector<torch::Tensor>& grads) {
  std::vector<torch::Tensor> flat;
  for (const auto& g : grads) flat.push_back(g.reshape(-1).to(torch::kDouble));
  return torch::cat(flat).norm().item<double>();
}

TEST(GradNormRecorder, WithAScalerRecordsTheNormOfTheUnscaledGradients) {
  auto net = make_net();
  torch::optim::SGD optimizer(net.model->parameters(), torch::optim::SGDOptions(0.1));
  GradScaler scaler(kCpu, {.init_scale = 1024.0});
  GradNormRecorder recorder;
  scaler.scale(net.loss(0)).backward();
  recorder.record(optimizer, scaler);  // still scaled: multiplied by 1/scale on the device
  scaler.unscale_(optimizer);
  recorder.record(optimizer, scaler);  // already unscaled: taken as is
  const auto unscaled = grads_of(net);
  (void)scaler.step(optimizer);
  scaler.update();

  const auto norms = recorder.norms();
  ASSERT_EQ(norms.size(), 2u);
  // Bit for bit: the scale is a power of two, so scaling commutes with every rounding.
  EXPECT_EQ(norms[0], total_norm(unscaled));
  EXPECT_EQ(norms[1], total_norm(unscaled));
  EXPECT_NEAR(norms[0], flat_norm(unscaled), 1e-6 * flat_norm(unscaled));
  EXPECT_GT(norms[0], 0.0);
  EXPECT_LT(norms[0], 1e3) << "a scaled norm (x1024) would be recorded without the unscaling";
}

TEST(GradNormRecorder, WithoutAScalerRecordsTheGradientsAsTheyAre) {
  auto net = make_net();
  torch::optim::SGD optimizer(net.model->parameters(), torch::optim::SGDOptions(0.1));
  GradNormRecorder recorder;
  net.loss(1).backward();
  recorder.record(optimizer);
  recorder.record(net.model->parameters());
  const auto norms = recorder.norms();
  ASSERT_EQ(norms.size(), 2u);
  EXPECT_EQ(norms[0], total_norm(grads_of(net)));
  EXPECT_EQ(norms[1], norms[0]);
  EXPECT_EQ(recorder.size(), 2);
  recorder.clear();
  EXPECT_TRUE(recorder.norms().empty());
}

TEST(GradNormRecorder, A16BitGradientsNormIsTakenInFloat32) {
  // Norm 1e5 > 65504, float16's largest value: a float16 result would be inf.
  auto param = torch::zeros({10000}, torch::kHalf).requires_grad_();
  param.mutable_grad() = torch::full({10000}, 1000.0, torch::kHalf);
  GradNormRecorder recorder;
  recorder.record({param});
  // Within float32 summation error (1e4 squares of 1e6 add up in float32).
  EXPECT_NEAR(recorder.norms().at(0), 1e5, 1.0);
}

TEST(GradNormRecorder, ASkippedStepRecordsANonFiniteNorm) {
  auto net = make_net();
  torch::optim::SGD optimizer(net.model->parameters(), torch::optim::SGDOptions(0.1));
  GradScaler scaler(kCpu, {.init_scale = 1024.0});
  GradNormRecorder recorder;
  for (int step = 0; step < 3; ++step) {
    optimizer.zero_grad();
    scaler.scale(net.loss(step)).backward();
    if (step > 0) {
      torch::NoGradGuard no_grad;
      net.model->parameters()[step].mutable_grad().view(-1)[1] = step == 1 ? kInf : std::nanf("");
    }
    recorder.record(optimizer, scaler);
    EXPECT_EQ(scaler.step(optimizer), step == 0 ? StepOutcome::kStepped : StepOutcome::kSkipped);
    scaler.update();
  }
  const auto norms = recorder.norms();
  ASSERT_EQ(norms.size(), 3u);
  EXPECT_TRUE(std::isfinite(norms[0]));
  EXPECT_EQ(norms[1], std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(norms[2]));
}

// The sync count of whole steps with and without the recorder: recording must not change it
// (one per step with torch::optim::SGD, none with FusedSGD), and norms() is the one read.
struct SyncCase {
  const char* name;
  bool fused;
  std::int64_t syncs_per_step;
};

class GradNormRecorderSyncs : public testing::TestWithParam<SyncCase> {};

TEST_P(GradNormRecorderSyncs, RecordingAddsNoHostSyncToAStep) {
  constexpr int kSteps = 6;
  auto net = make_net();
  const auto options = torch::optim::SGDOptions(0.1).momentum(0.9);
  std::unique_ptr<torch::optim::Optimizer> optimizer;
  if (GetParam().fused) {
    optimizer = std::make_unique<ampbench::amp::FusedSGD>(net.model->parameters(), options);
  } else {
    optimizer = std::make_unique<torch::optim::SGD>(net.model->parameters(), options);
  }
  GradScaler scaler(kCpu, {.init_scale = 1024.0, .growth_interval = 2});
  GradNormRecorder recorder;
  SyncCounter counter;
  for (int step = 0; step < kSteps; ++step) {
    const bool record = step % 2 == 1;  // alternate, so each recorded step has a control beside it
    const auto before = counter.count();
    optimizer->zero_grad();
    scaler.scale(net.loss(step)).backward();
    if (step == 3) {
      torch::NoGradGuard no_grad;
      net.model->parameters()[0].mutable_grad().view(-1)[0] = kInf;  // a skipped step costs the same
    }
    if (record) recorder.record(*optimizer, scaler);
    (void)scaler.step(*optimizer);
    scaler.update();
    EXPECT_EQ(counter.count() - before, GetParam().syncs_per_step)
        << "step " << step << (record ? " with" : " without") << " the recorder";
  }
  EXPECT_EQ(recorder.host_syncs(), 0);
  EXPECT_EQ(recorder.norms().size(), static_cast<std::size_t>(kSteps / 2));
  EXPECT_EQ(recorder.host_syncs(), 1);
}

INSTANTIATE_TEST_SUITE_P(Optimizers, GradNormRecorderSyncs,
                         testing::Values(SyncCase{"SGD", false, 1}, SyncCase{"FusedSGD", true, 0}),
                         [](const auto& param_info) { return std::string(param_info.param.name); });

TEST(GradNormRecorder, ManyStepsSpanSeveralDeviceBuffers) {
  auto param = torch::zeros({2}).requires_grad_();
  GradNormRecorder recorder;
  constexpr int kSteps = 4096 + 3;  // one buffer holds 4096 rows
  for (int step = 0; step < kSteps; ++step) {
    param.mutable_grad() = torch::tensor({3.0f * static_cast<float>(step), 4.0f * static_cast<float>(step)});
    recorder.record({param});
  }
  const auto norms = recorder.norms();
  ASSERT_EQ(norms.size(), static_cast<std::size_t>(kSteps));
  EXPECT_EQ(norms[4095], 5.0 * 4095);
  EXPECT_EQ(norms[4096], 5.0 * 4096);
  EXPECT_EQ(norms.back(), 5.0 * (kSteps - 1));
}

TEST(GradNormRecorder, MisuseIsNamed) {
  auto net = make_net();
  torch::optim::SGD optimizer(net.model->parameters(), torch::optim::SGDOptions(0.1));
  GradScaler scaler(kCpu);
  GradNormRecorder recorder;
  expect_error([&] { recorder.record(optimizer); }, "record(optimizer): no parameter has a gradient");
  expect_error([&] { recorder.record(optimizer, scaler); }, "pending_inv_scale() called before scale()");
  scaler.scale(net.loss(0)).backward();
  (void)scaler.step(optimizer);
  expect_error([&] { recorder.record(optimizer, scaler); }, "called after step() on this optimizer");
  scaler.update();
  EXPECT_EQ(recorder.size(), 0);
}

TEST(GradScalerPendingInvScale, OneOverTheScaleUntilUnscaled) {
  auto net = make_net();
  torch::optim::SGD optimizer(net.model->parameters(), torch::optim::SGDOptions(0.1));
  GradScaler scaler(kCpu, {.init_scale = 512.0});
  scaler.scale(net.loss(0)).backward();
  SyncCounter counter;
  const auto inv = scaler.pending_inv_scale(optimizer);
  EXPECT_EQ(counter.count(), 0);
  ASSERT_TRUE(inv.has_value());
  EXPECT_EQ(inv->dim(), 0);
  EXPECT_EQ(inv->scalar_type(), torch::kFloat);
  EXPECT_EQ(inv->item<double>(), 1.0 / 512.0);
  scaler.unscale_(optimizer);
  EXPECT_FALSE(scaler.pending_inv_scale(optimizer).has_value());
  EXPECT_FALSE(GradScaler(kCpu, {.enabled = false}).pending_inv_scale(optimizer).has_value());
}

}  // namespace
