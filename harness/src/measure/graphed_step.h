// Internal: a training step replayed from a CUDA graph (--graphs). The first
// kEagerStepsBeforeCapture steps run eagerly on the graph's side stream, so that everything set
// up lazily (cuBLAS and cuDNN handles and workspaces, the optimizer's state, the GradScaler's
// scale) exists before the capture; the next step is captured whole (zero_grad, the forward under
// autocast, the loss, the scaled backward, unscale, the fused optimizer step with its device-side
// inf flag and step count, the scale update) and replayed, and so is every step after it. Every
// step reads its batch from static tensors the caller fills first, eager or graphed alike.
//
// The autocast weight cache lives for one step's Autocast scope (amp/autocast.h), so nothing a
// warm-up step cached reaches the capture, and the captured casts are redone at each replay.
#pragma once

#include <c10/core/Device.h>
#include <torch/types.h>

#include <cstdint>
#include <memory>
#include <string>

#include "measure/training_step.h"

namespace ampbench::harness::detail {

class CudaGraph;

inline constexpr std::int64_t kEagerStepsBeforeCapture = 2;

// Throws std::invalid_argument naming the workload, its optimizer's type and the fused one to use
// when `optimizer` cannot be captured: LibTorch's own optimizers compute on the host (Adam's bias
// correction from a host step count), so a replay would repeat the captured step's arithmetic.
void require_capturable(const std::string& workload, torch::optim::Optimizer& optimizer);

// Copies `from` into `to` (same shapes) in place: the static inputs a captured step reads.
void copy_batch(workloads::Batch& to, const workloads::Batch& from);

class GraphedStep {
 public:
  // `step` trains on `inputs`, whose tensors the caller refills before each run(). Checks the
  // optimizer (require_capturable).
  GraphedStep(const TrainingStep& step, const workloads::Batch& inputs, c10::Device device);
  ~GraphedStep();
  GraphedStep(const GraphedStep&) = delete;
  GraphedStep& operator=(const GraphedStep&) = delete;

  // One step on `inputs`; returns its loss, a tensor the next replay overwrites (copy it out).
  [[nodiscard]] torch::Tensor run();

 private:
  const TrainingStep& step_;
  const workloads::Batch& inputs_;
  std::unique_ptr<CudaGraph> graph_;
  bool captured_ = false;
  std::int64_t eager_steps_ = 0;
  torch::Tensor loss_;  // the captured step's output, rewritten by each replay
};

}  // namespace ampbench::harness::detail
