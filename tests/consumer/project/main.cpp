// A LibTorch training loop that links the installed ampbench::amp: FP16 autocast and a GradScaler
// on the CPU, as a user of the package would write it.
#include <ampbench/amp/autocast.h>
#include <ampbench/amp/grad_scaler.h>
#include <ampbench/amp/version.h>
#include <torch/torch.h>

#include <iostream>

int main() {
  torch::manual_seed(0);
  torch::nn::Linear model(8, 1);
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.05));
  ampbench::amp::GradScaler scaler(torch::kCPU);
  const auto inputs = torch::randn({32, 8});
  const auto targets = inputs.sum(1, /*keepdim=*/true);
  double first = 0.0;
  double last = 0.0;
  for (int step = 0; step < 30; ++step) {
    optimizer.zero_grad();
    torch::Tensor loss;
    {
      ampbench::amp::Autocast autocast(torch::kCPU, torch::kHalf);
      loss = torch::mse_loss(model(inputs), targets);
    }
    scaler.scale(loss).backward();
    (void)scaler.step(optimizer);
    scaler.update();
    (step == 0 ? first : last) = loss.item<double>();
  }
  if (!(last < first)) {
    std::cerr << "consumer: loss did not fall (" << first << " -> " << last << ")\n";
    return 1;
  }
  std::cout << "consumer: ok (ampbench::amp " << ampbench::amp::version() << ", loss " << first << " -> " << last
            << ", scale " << scaler.get_scale() << ")\n";
  return 0;
}
