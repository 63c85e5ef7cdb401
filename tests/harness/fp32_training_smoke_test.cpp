// The wiring end to end: LibTorch from the wheel trains a tiny model on CPU and the loss falls.
#include <gtest/gtest.h>
#include <torch/torch.h>

namespace {

TEST(Fp32TrainingSmoke, LinearRegressionLossFallsOnCpu) {
  torch::manual_seed(0);
  const auto inputs = torch::randn({64, 8});
  const auto teacher = torch::randn({8, 1});
  const auto targets = inputs.matmul(teacher);

  torch::nn::Linear model(8, 1);
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.1));
  double first_loss = 0.0;
  double last_loss = 0.0;
  for (int step = 0; step < 20; ++step) {
    optimizer.zero_grad();
    const auto loss = torch::mse_loss(model(inputs), targets);
    loss.backward();
    optimizer.step();
    (step == 0 ? first_loss : last_loss) = loss.item<double>();
  }
  EXPECT_LT(last_loss, 0.1 * first_loss) << "first " << first_loss << " last " << last_loss;
}

}  // namespace
