// A training workload: a torch::nn model, a learnable synthetic task, its loss, its optimizer and
// its cost per step. Targets come from a fixed random "teacher" of the same architecture (SimpleNet,
// TransformerBlock) or from noisy class templates (SimpleCNN), so the FP32 loss keeps descending
// and a low-precision run that drifts from it has really diverged.
#pragma once

#include <torch/nn/module.h>
#include <torch/optim/optimizer.h>
#include <torch/types.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "ampbench/workloads/preset.h"

namespace ampbench::workloads {

struct Batch {
  torch::Tensor input;
  torch::Tensor target;
};

struct WorkloadOptions {
  Preset preset = Preset::kDefault;
  std::optional<std::int64_t> batch;  // overrides the preset's batch size when set
  std::uint64_t seed = 0;             // initial weights, teacher and data all derive from it
  torch::Device device = torch::kCPU;
  // The run captures steps in CUDA graphs (--graphs on or both): make_optimizer() must return one a
  // graph can capture, i.e. one of ampbench::amp's fused optimizers (their state and step count
  // live on the device). Every mode of such a run gets it, so eager and graphed cells step alike.
  bool capturable_optimizer = false;
};

class Workload {
 public:
  virtual ~Workload() = default;

  [[nodiscard]] virtual std::string name() const = 0;
  // The sizes in effect, e.g. "conv 3->32->64, fc 4096->10, batch 64, 3x32x32".
  [[nodiscard]] virtual std::string describe() const = 0;
  [[nodiscard]] virtual torch::nn::Module& module() = 0;
  // Forward pass and loss, under whatever autocast scope the caller has open.
  [[nodiscard]] virtual torch::Tensor loss(const Batch& batch) = 0;
  // A fresh optimizer over module()'s parameters, as the workload's recipe prescribes.
  [[nodiscard]] virtual std::unique_ptr<torch::optim::Optimizer> make_optimizer() = 0;
  // Deterministic: the same index gives the same batch for every mode and device, so every mode
  // trains on identical data. Built outside the timed region. Every index is a distinct draw: the
  // numerics pass trains on indices from 0 and evaluates on held-out ones from 2^40.
  [[nodiscard]] virtual Batch make_batch(std::int64_t index) = 0;
  // Forward + backward FLOPs of one step: 3x the forward GEMM/conv/attention FLOPs (backward
  // computes two products per forward product), the usual convention. Absent: ampbench counts them
  // from one forward (ampbench/harness/flop_count.h) and the report says so.
  [[nodiscard]] virtual std::optional<double> flops_per_step() const = 0;
  [[nodiscard]] virtual std::int64_t samples_per_step() const = 0;
  [[nodiscard]] virtual std::int64_t tokens_per_step() const { return 0; }
};

}  // namespace ampbench::workloads
