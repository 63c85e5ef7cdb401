// The machine probe: a fixed piece of work timed in every round beside the modes, whose time
// says how fast the machine is at that moment, so `check` can tell the machine's drift from a
// change in the code.
#pragma once

#include <torch/torch.h>

#include <string>

namespace ampbench::harness::detail {

// On a CPU, one training step of a fixed small float32 MLP (forward, backward, gradients
// dropped): a small step pays for op dispatch, autograd and the thread pool's hand-offs, and
// those are what move when the host changes where the VM's cores sit (a GEMM alone moved 9%
// when the workloads' steps moved 40-60%: docs/performance.md). On a GPU, a float32 matrix
// product large enough to be the device's own speed.
class MachineProbe {
 public:
  explicit MachineProbe(c10::Device device);
  void run();
  // What is timed, recorded with the rounds: two reports' probes compare only when they match.
  [[nodiscard]] const std::string& name() const { return name_; }

 private:
  std::string name_;
  torch::nn::Sequential mlp_;  // CPU only
  torch::Tensor input_;
  torch::Tensor target_;
  torch::Tensor a_;  // GPU only
  torch::Tensor b_;
};

}  // namespace ampbench::harness::detail
