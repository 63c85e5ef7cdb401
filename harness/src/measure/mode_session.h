// Internal (used by the runner and bench/harness_overhead_benchmark): one mode of a workload, ready to step: its own
// model (seeded like every other mode's), optimizer, GradScaler, batches and loss buffer, and the memory ledger of
// everything it allocates. The rounds call step() on several sessions in turn.
#pragma once

#include <ampbench/amp/grad_norm_recorder.h>
#include <ampbench/amp/grad_scaler.h>
#include <torch/torch.h>

#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "ampbench/harness/mode.h"
#include "ampbench/harness/workload_task.h"
#include "ampbench/workloads/workload.h"
#include "distributed/gradient_sync.h"
#include "measure/graphed_step.h"
#include "measure/tensor_memory.h"
#include "measure/training_state_snapshot.h"
#include "measure/training_step.h"

namespace ampbench::harness::detail {

// Distinct pre-generated batches each session holds and cycles through (the memory preflight
// counts them).
inline constexpr std::int64_t kBatchPool = 16;

class ModeSession {
 public:
  // Builds the workload and its batches; allocations count towards this mode's ledger.
  // `step_capacity` bounds the steps this session may run (for the preallocated loss buffer).
  // `group`: data parallel (task.rank set): rank r trains on batches r, r + N, r + 2N, ... of the
  // workload's sequence, and its gradients are averaged over the group every step.
  ModeSession(const WorkloadTask& task, const Mode& mode, c10::Device device, TensorMemoryProbe& memory,
              std::int64_t step_capacity, c10::intrusive_ptr<c10d::ProcessGroup> group = {});
  ~ModeSession();

  // One training step on the next batch (the same sequence for every mode), then what is kept of
  // it: its loss copied into the preallocated buffer and the unscaled global gradient norm
  // recorded, on the device (no host sync). Sets the mode's float32 precision first, since modes of
  // one process take turns. `timed` runs the step itself and nothing else, so a timer wrapped
  // around it (timed_step) leaves the recording out of the step time.
  void step(const std::function<void(const std::function<void()>&)>& timed);
  void step();  // the same, run directly
  // step() inside this mode's memory ledger: what every warm-up and timed step of the runner is.
  void metered_step(TensorMemoryProbe& memory);

  // The next step() reuses step `step`'s batch and loss slot: profiling replays the same work in
  // every pass (CUPTI's user replay needs a deterministic range).
  void rewind_to(std::int64_t step);
  // A copy of this mode's model, optimizer and GradScaler state: restored before each profiling
  // pass, since rewinding the batches alone would replay them on weights that moved on.
  [[nodiscard]] std::unique_ptr<TrainingStateSnapshot> snapshot_training_state();

  [[nodiscard]] const Mode& mode() const { return mode_; }
  [[nodiscard]] workloads::Workload& workload() { return *workload_; }
  [[nodiscard]] std::int64_t steps_done() const { return steps_done_; }
  [[nodiscard]] const reports::ModeSettings& settings() const { return settings_; }
  [[nodiscard]] ModeMemoryLedger& memory() { return ledger_; }
  [[nodiscard]] const amp::GradScaler* scaler() const { return scaler_ ? &*scaler_ : nullptr; }
  // Every step's scale and whether it was skipped, on the host (one copy): the scaler's own record
  // for an eager mode; for a graphed one, whose captured update() rewrites one record, the scale
  // read before each step (a step was skipped when the next scale is lower: the scaler backs off
  // exactly then). Empty without a scaler.
  [[nodiscard]] std::vector<amp::ScalerStepRecord> scaler_records() const;
  // Every step's loss so far, on the host (one copy, at the end).
  [[nodiscard]] std::vector<double> losses() const;
  // Every step's unscaled global gradient norm, on the host (one copy, at the end).
  [[nodiscard]] std::vector<double> grad_norms() const { return grad_norms_.norms(); }
  [[nodiscard]] torch::optim::Optimizer& optimizer() { return *optimizer_; }
  [[nodiscard]] amp::GradScaler* mutable_scaler() { return scaler_ ? &*scaler_ : nullptr; }
  // Data parallel only (else null / empty): the gradient sync, and every step's all-reduce figures.
  [[nodiscard]] const GradientSync* sync() const { return sync_.get(); }
  [[nodiscard]] const std::vector<StepCommunication>& communication() const { return communication_; }

 private:
  void record_scale_before_step();  // a graphed mode's scale before the step, on the device

  const WorkloadTask& task_;
  const Mode& mode_;
  c10::Device device_;
  reports::ModeSettings settings_;
  std::string cell_range_name_;  // the NVTX range around each step: "cell workload/mode/device"
  torch::Tensor loss_buffer_;    // allocated before the ledger starts: not part of the mode's peak
  ModeMemoryLedger ledger_;
  std::unique_ptr<workloads::Workload> workload_;
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
  std::optional<amp::GradScaler> scaler_;
  amp::GradNormRecorder grad_norms_;
  std::vector<workloads::Batch> batches_;
  std::unique_ptr<GradientSync> sync_;
  std::vector<StepCommunication> communication_;
  std::optional<TrainingStep> step_;
  // With --graphs on or both: the static batch every step reads (eager ones too, so both executions
  // copy their batch alike), and for a graphed mode its graph and each step's scale before it.
  std::optional<workloads::Batch> static_batch_;
  std::unique_ptr<GraphedStep> graphed_;
  torch::Tensor scale_buffer_;
  std::int64_t steps_done_ = 0;
};

// The workload as the run's settings describe it (preset, batch, seed) on `device`: what every
// mode's session and numerics run build, so all start from the same weights and data.
[[nodiscard]]  // "float16", "bfloat16", else "float32": how reports name a compute dtype.
[[nodiscard]] std::string
dtype_name(c10::ScalarType dtype);

[[nodiscard]] workloads::WorkloadOptions workload_options(const reports::RunConfig& config, c10::Device device);

// Sets the float32 precision knobs for the mode and returns what is in effect, so an FP32
// baseline always states its TF32 settings.
reports::ModeSettings apply_precision(const Mode& mode);

}  // namespace ampbench::harness::detail
