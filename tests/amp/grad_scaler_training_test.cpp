// Training on CPU: a SimpleNet-sized MLP (10 -> 32 -> 1, MSE, SGD) trained from the same
// weights on the same batches in FP32, in FP16 with GradScaler, and in BF16, ends where FP32
// ends, within a stated tolerance.
//
// Both halves of ampbench's amp library together: its Autocast casts the forward, its GradScaler
// scales the backward, as a LibTorch user's loop would use them.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <optional>

#include "ampbench/amp/autocast.h"
#include "ampbench/amp/grad_scaler.h"

namespace {

constexpr int kSteps = 150;
constexpr int kBatch = 64;
// Final loss of the AMP run vs FP32: |amp - fp32| <= kRelTolerance * fp32 + kAbsTolerance.
// Measured with torch 2.15.0 on an AVX2 CPU: FP16 + GradScaler within 0.9% (after 3 skipped
// steps), BF16 within 1.2%. The tolerance leaves room for other CPUs' kernels.
constexpr double kRelTolerance = 0.05;
constexpr double kAbsTolerance = 1e-3;

struct TrainingResult {
  std::vector<double> losses;
  std::vector<ampbench::amp::ScalerStepRecord> telemetry;
};

// A learnable task: targets from a fixed random teacher, so the loss descends.
TrainingResult train(std::optional<at::ScalarType> amp_dtype, bool use_scaler) {
  torch::manual_seed(7);
  torch::nn::Linear teacher(10, 1);
  const auto inputs = torch::randn({kSteps, kBatch, 10});
  torch::Tensor targets;
  {
    torch::NoGradGuard no_grad;
    targets = torch::tanh(teacher(inputs));
  }
  torch::manual_seed(11);  // the same initial weights in every run
  torch::nn::Sequential model(torch::nn::Linear(10, 32), torch::nn::ReLU(), torch::nn::Linear(32, 1));
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.1).momentum(0.9));
  // 2^20: high enough that the first fp16 backward passes overflow, so the scaler must back off
  // and skip steps for real (no injected inf here).
  ampbench::amp::GradScaler scaler(c10::DeviceType::CPU, {.init_scale = 1048576.0, .enabled = use_scaler});

  TrainingResult result;
  for (int step = 0; step < kSteps; ++step) {
    optimizer.zero_grad();
    torch::Tensor loss;
    {
      std::optional<ampbench::amp::Autocast> autocast;
      if (amp_dtype) autocast.emplace(c10::DeviceType::CPU, *amp_dtype);
      loss = torch::mse_loss(model->forward(inputs[step]), targets[step]);
    }
    EXPECT_EQ(loss.scalar_type(), torch::kFloat);  // mse_loss runs in fp32 under autocast
    scaler.scale(loss).backward();
    (void)scaler.step(optimizer);
    scaler.update();
    result.losses.push_back(loss.item<double>());
  }
  result.telemetry = scaler.telemetry();
  return result;
}

double tail_mean(const std::vector<double>& losses) {
  constexpr std::size_t kTail = 10;  // the mean of the last steps: less noisy than the last one
  double sum = 0.0;
  for (std::size_t i = losses.size() - kTail; i < losses.size(); ++i) {
    sum += losses[i];
  }
  return sum / kTail;
}

void expect_ends_near_fp32(const TrainingResult& amp, const TrainingResult& fp32, const char* name) {
  const double want = tail_mean(fp32.losses);
  const double got = tail_mean(amp.losses);
  EXPECT_NEAR(got, want, kRelTolerance * want + kAbsTolerance) << name;
  std::cout << name << ": final loss " << got << " vs fp32 " << want << " (first " << amp.losses.front() << ")\n";
}

TEST(GradScalerTraining, Fp16WithScalerAndBf16EndNearFp32OnCpu) {
  const auto fp32 = train(std::nullopt, /*use_scaler=*/false);
  ASSERT_LT(tail_mean(fp32.losses), 0.2 * fp32.losses.front()) << "the FP32 run must learn";

  const auto fp16 = train(at::kHalf, /*use_scaler=*/true);
  expect_ends_near_fp32(fp16, fp32, "fp16 + GradScaler");
  ASSERT_EQ(fp16.telemetry.size(), static_cast<std::size_t>(kSteps));
  int skipped = 0;
  for (const auto& record : fp16.telemetry) {
    skipped += record.skipped ? 1 : 0;
    EXPECT_GE(record.scale, 1.0);
  }
  EXPECT_GE(skipped, 1) << "2^20 should overflow fp16 gradients at first";
  EXPECT_LT(skipped, kSteps / 10) << "the scaler should settle after a few skipped steps";
  std::cout << "fp16 skipped steps: " << skipped << ", final scale " << fp16.telemetry.back().scale << "\n";

  const auto bf16 = train(at::kBFloat16, /*use_scaler=*/false);
  expect_ends_near_fp32(bf16, fp32, "bf16");
}

}  // namespace
