// Internal: data parallel for one mode's model, as DDP does it: c10d's Reducer (gradients bucketed
// in reverse order of registration, each bucket all-reduced as soon as its gradients are ready,
// overlapping the rest of backward) with a communication hook that averages, optionally in
// float16/bfloat16 (PyTorch's fp16/bf16 compression hooks), and records what each step's
// all-reduces cost.
#pragma once

#include <torch/torch.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/reducer.hpp>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ampbench/reports/grad_compression.h"

namespace ampbench::harness::detail {

// What one step's all-reduces cost on this rank.
struct StepCommunication {
  double seconds = 0.0;  // time with at least one of the step's all-reduces in flight
  double bytes = 0.0;    // handed to all-reduce (compressed size)
};

// The hook's record of the all-reduces in flight; shared with the hook, which c10d owns.
class CommunicationLog {
 public:
  // device_timed: the backend times its own work on the device (NCCL, Work::getDuration); else
  // (Gloo) the host's launch-to-completion intervals are the figure.
  explicit CommunicationLog(bool device_timed) : device_timed_(device_timed) {}
  // An all-reduce started; finished(token) when its result is in. The token is its index.
  [[nodiscard]] std::size_t launched(const c10::intrusive_ptr<c10d::Work>& work, double bytes);
  void finished(std::size_t token);
  // The step's figures once its all-reduces are done (after backward returns, the Reducer has
  // waited for them all); clears the log for the next step.
  [[nodiscard]] StepCommunication take_step();

 private:
  struct Interval {
    double start_s = 0.0;
    double end_s = 0.0;  // 0 while in flight
  };
  const bool device_timed_;
  std::mutex mutex_;
  std::vector<Interval> intervals_;
  std::vector<c10::intrusive_ptr<c10d::Work>> works_;  // NCCL: each work's own device-timed duration
  double bytes_ = 0.0;
};

class GradientSync {
 public:
  // Broadcasts rank 0's parameters and buffers (every rank starts from the same weights, as DDP
  // does) and builds the Reducer over the module's parameters, its all-reduce in `compression`'s dtype.
  GradientSync(c10::intrusive_ptr<c10d::ProcessGroup> group, torch::nn::Module& module,
               reports::GradCompression compression);

  // Before each backward: the Reducer arms its hooks for this step.
  void before_backward(const torch::Tensor& loss);
  [[nodiscard]] StepCommunication take_step() { return log_->take_step(); }

  [[nodiscard]] std::int64_t buckets() const { return buckets_; }
  [[nodiscard]] std::string description() const;
  [[nodiscard]] const std::string& backend() const { return backend_; }
  [[nodiscard]] c10d::ProcessGroup& group() { return *group_; }

 private:
  c10::intrusive_ptr<c10d::ProcessGroup> group_;
  reports::GradCompression compression_;
  std::string backend_;
  std::shared_ptr<CommunicationLog> log_;
  std::int64_t buckets_ = 0;
  std::unique_ptr<c10d::Reducer> reducer_;
};

}  // namespace ampbench::harness::detail
