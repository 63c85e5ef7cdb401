// Per-module range statistics for the numerics pass (reports::LayerDiagnostics, issue #34).
//
// LibTorch's C++ modules have no forward hooks, so the recorder finds a module's outputs from the
// ops themselves: during the forward it watches the thread's top-level ATen ops (a RecordFunction
// callback with their inputs and outputs). An op that takes one of a module's parameters, or a
// tensor made only from them (a cast, a transpose, a slice: "derived"), together with any other
// tensor (the activations, an embedding's indices) is that module applying its parameters: its
// outputs are the module's, and a hook on each records the gradient that reaches it in backward.
// Nothing here runs in the timed steps: the numerics pass alone creates a recorder.
#pragma once

#include <ATen/record_function.h>
#include <ampbench/amp/grad_scaler.h>
#include <torch/nn/module.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ampbench/reports/report.h"

namespace ampbench::harness::detail {

class LayerRangeRecorder {
 public:
  explicit LayerRangeRecorder(torch::nn::Module& model);
  ~LayerRangeRecorder();
  LayerRangeRecorder(const LayerRangeRecorder&) = delete;
  LayerRangeRecorder& operator=(const LayerRangeRecorder&) = delete;

  // Around each training step: `observed` steps get the full statistics, every step the check for
  // non-finite tensors.
  void begin_step(std::int64_t step, bool observed);
  void end_step();

  // What TrainingStep calls around the forward (ForwardObservation below).
  void begin_forward();
  void end_forward();

  // The diagnostics of the run: the scaler's telemetry says which steps it skipped and at which
  // scale each ran (empty without a scaler: then the first step whose loss is not finite is the
  // bad one). One host sync per bad step it names.
  [[nodiscard]] reports::LayerDiagnostics finish(const std::vector<amp::ScalerStepRecord>& telemetry,
                                                 const std::vector<double>& train_loss);

  // Internal, for the RecordFunction callbacks and the gradient hooks. An op's inputs say whose it
  // is (they can only be read in the start callback), its outputs are recorded at its end.
  struct OpOwner {
    std::optional<std::size_t> module;  // the module whose parameters, or tensors derived from them, it takes
    bool other_input = false;           // any other tensor: activations, indices
  };
  [[nodiscard]] OpOwner owner_of_inputs(c10::ArrayRef<const c10::IValue> inputs) const;
  void on_top_level_op(const at::RecordFunction& op, const OpOwner& owner);
  void on_gradient(std::size_t module, const at::Tensor& gradient);

 private:
  struct Recorded {
    std::size_t module;
    bool gradient;
    std::int64_t elements;
    c10::ScalarType dtype;
  };
  struct StepRecord {
    std::vector<Recorded> order;  // in the order the tensors were produced
    at::Tensor finite;            // one bool per entry of `order`, stacked at end_step (on the device)
  };
  // The step being trained: what end_step stacks, one tensor per entry of record.order.
  struct CurrentStep {
    std::int64_t step = 0;
    StepRecord record;
    std::vector<at::Tensor> finite_flags;
    std::vector<at::Tensor> counts;  // observed steps only: range_counts' rows
  };
  struct ObservedStep {
    std::int64_t step = 0;
    std::vector<reports::LayerRangeStep> layers;  // per module: summed over its ops
  };

  void record(std::size_t module, const at::Tensor& tensor, bool gradient);

  std::vector<std::string> paths_;                                 // per module index
  std::unordered_map<const c10::TensorImpl*, std::size_t> owner_;  // parameters -> module
  // This forward's casts and views of parameters, held until it ends: a freed tensor's address
  // would otherwise come back as an activation's and be taken for the module's.
  std::unordered_map<const c10::TensorImpl*, std::pair<std::size_t, at::Tensor>> derived_;
  std::vector<std::int64_t> first_seen_;  // per module: its rank in the first forward, -1 unseen
  std::int64_t seen_ = 0;
  bool observing_ = false;  // this step gets the full statistics
  at::Tensor edges_;        // float16's range as bucketize edges, on the tensors' device
  CurrentStep current_;
  std::map<std::int64_t, StepRecord> steps_;  // by training step, for finish() to name the bad ones
  std::vector<ObservedStep> observed_;
  at::CallbackHandle callback_ = 0;
};

// Watches the forward for the recorder while it lives; does nothing when `recorder` is null.
class ForwardObservation {
 public:
  explicit ForwardObservation(LayerRangeRecorder* recorder);
  ~ForwardObservation();
  ForwardObservation(const ForwardObservation&) = delete;
  ForwardObservation& operator=(const ForwardObservation&) = delete;

 private:
  LayerRangeRecorder* recorder_;
};

}  // namespace ampbench::harness::detail
