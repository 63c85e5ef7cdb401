#include "measure/graphed_step.h"

#include <ampbench/amp/fused_optimizers.h>
#include <c10/util/Type.h>
#include <torch/optim/adam.h>
#include <torch/optim/adamw.h>
#include <torch/optim/sgd.h>

#include <stdexcept>
#include <typeinfo>

#include "machine/cuda_graph.h"

namespace ampbench::harness::detail {
namespace {

// The fused optimizer of the same algorithm as LibTorch's `optimizer`, for the refusal's advice.
std::string fused_twin(torch::optim::Optimizer& optimizer) {
  if (dynamic_cast<torch::optim::AdamW*>(&optimizer) != nullptr) return "ampbench::amp::FusedAdamW";
  if (dynamic_cast<torch::optim::Adam*>(&optimizer) != nullptr) return "ampbench::amp::FusedAdam";
  if (dynamic_cast<torch::optim::SGD*>(&optimizer) != nullptr) return "ampbench::amp::FusedSGD";
  return "one of ampbench::amp::FusedSGD, FusedAdam or FusedAdamW";
}

}  // namespace

void require_capturable(const std::string& workload, torch::optim::Optimizer& optimizer) {
  if (dynamic_cast<amp::FusedOptimizer*>(&optimizer) != nullptr) return;
  throw std::invalid_argument("workload '" + workload + "': its optimizer, " + c10::demangle(typeid(optimizer).name()) +
                              ", cannot be captured in a CUDA graph (it computes on the host, so every replay would "
                              "repeat the captured step's update); build it as " +
                              fused_twin(optimizer) + " (docs/gpu.md)");
}

void copy_batch(workloads::Batch& to, const workloads::Batch& from) {
  const torch::NoGradGuard no_grad;
  to.input.copy_(from.input, /*non_blocking=*/true);
  to.target.copy_(from.target, /*non_blocking=*/true);
}

GraphedStep::GraphedStep(const TrainingStep& step, const workloads::Batch& inputs, c10::Device device)
    : step_(step), inputs_(inputs) {
  require_capturable(step.workload.name(), step.optimizer);
  graph_ = std::make_unique<CudaGraph>(device);
}

GraphedStep::~GraphedStep() = default;

torch::Tensor GraphedStep::run() {
  if (eager_steps_ < kEagerStepsBeforeCapture) {
    torch::Tensor loss;
    graph_->on_side_stream([&] { loss = step_.run(inputs_, false); });
    ++eager_steps_;
    return loss;
  }
  if (!captured_) {
    graph_->capture([&] { loss_ = step_.run(inputs_, false); });
    captured_ = true;
  }
  graph_->replay();
  return loss_;
}

}  // namespace ampbench::harness::detail
