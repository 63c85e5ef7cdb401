#include "measure/mode_session.h"

#include <ATen/Context.h>

#include <algorithm>
#include <stdexcept>

#include "ampbench/workloads/preset.h"
#include "ampbench/workloads/registry.h"
#include "measure/nvtx_ranges.h"

namespace ampbench::harness::detail {

std::string dtype_name(c10::ScalarType dtype) {
  switch (dtype) {
    case c10::ScalarType::Half:
      return "float16";
    case c10::ScalarType::BFloat16:
      return "bfloat16";
    default:
      return "float32";
  }
}

workloads::WorkloadOptions workload_options(const reports::RunConfig& config, c10::Device device) {
  return {workloads::parse_preset(config.preset), config.batch, static_cast<std::uint64_t>(config.seed), device,
          config.graphs != reports::GraphExecution::kOff};
}

reports::ModeSettings apply_precision(const Mode& mode) {
  auto& context = at::globalContext();
  context.setFloat32MatmulPrecision(mode.tf32 ? "high" : "highest");
  context.setAllowTF32CuDNN(mode.tf32);
  reports::ModeSettings settings;
  settings.compute_dtype = dtype_name(mode.compute_dtype);
  settings.autocast = mode.autocast;
  settings.grad_scaler = mode.grad_scaler;
  settings.tf32_matmul = context.float32MatmulPrecision() != at::Float32MatmulPrecision::HIGHEST;
  settings.tf32_cudnn = context.allowTF32CuDNN();
  settings.float32_matmul_precision = mode.tf32 ? "high" : "highest";
  return settings;
}

ModeSession::ModeSession(const WorkloadTask& task, const Mode& mode, c10::Device device, TensorMemoryProbe& memory,
                         std::int64_t step_capacity, c10::intrusive_ptr<c10d::ProcessGroup> group)
    : task_(task),
      mode_(mode),
      device_(device),
      settings_(apply_precision(mode)),
      cell_range_name_("cell " + task.workload + "/" + mode.name + "/" + device.str()) {
  // Keeping each step's loss as a tensor would keep its storage alive: a 0-dim mean loss can be a
  // view of the whole element-wise buffer (docs/performance.md): memory grew with the steps.
  loss_buffer_ = torch::empty({step_capacity}, torch::TensorOptions().dtype(torch::kFloat).device(device));
  ledger_.begin(memory);
  const auto& config = task.config;
  workload_ = workloads::make_workload(task.workload, workload_options(config, device));
  optimizer_ = workload_->make_optimizer();
  if (mode.grad_scaler) scaler_.emplace(device.type());
  // Data parallel: rank r of N takes every N-th batch of the one sequence, from the r-th on, so the
  // N ranks' batches of a step are the N consecutive batches a single process would train on.
  const std::int64_t stride = task.rank ? task.rank->world_size : 1;
  const std::int64_t offset = task.rank ? task.rank->rank : 0;
  for (std::int64_t index = 0; index < kBatchPool; ++index) {
    batches_.push_back(workload_->make_batch(index * stride + offset));
  }
  // A user's batch on another device would fail deep inside the first forward; say which.
  for (const auto* tensor : {&batches_.front().input, &batches_.front().target}) {
    if (tensor->device() != device) {
      throw std::invalid_argument("workload '" + task.workload + "': make_batch(0) returned a tensor on " +
                                  tensor->device().str() + ", the run's device is " + device.str());
    }
  }
  if (group) sync_ = std::make_unique<GradientSync>(std::move(group), workload_->module(), config.grad_compression);
  step_.emplace(
      TrainingStep{*workload_, *optimizer_, scaler_ ? &*scaler_ : nullptr, mode_, device.type(), sync_.get()});
  if (config.graphs != reports::GraphExecution::kOff) {
    static_batch_ = workloads::Batch{batches_.front().input.clone(), batches_.front().target.clone()};
  }
  if (mode.graphed) {
    graphed_ = std::make_unique<GraphedStep>(*step_, *static_batch_, device);
    if (scaler_) scale_buffer_ = torch::empty({step_capacity}, loss_buffer_.options());
  }
  ledger_.end(memory);
}

ModeSession::~ModeSession() = default;

void ModeSession::step() {
  step([](const std::function<void()>& work) { work(); });
}

void ModeSession::step(const std::function<void(const std::function<void()>&)>& timed) {
  TORCH_CHECK(steps_done_ < loss_buffer_.numel(), "mode ", mode_.name, ": more steps than the ", loss_buffer_.numel(),
              " planned");
  // Each step is a range named for its cell, so a timeline of interleaved modes shows whose it is.
  const PhaseRange cell_range(cell_range_name_.c_str());
  (void)apply_precision(mode_);
  const auto& inject = task_.inject_overflow_steps;
  const bool overflow = std::find(inject.begin(), inject.end(), steps_done_) != inject.end();
  const auto& batch = batches_[static_cast<std::size_t>(steps_done_ % kBatchPool)];
  torch::Tensor loss;
  if (scale_buffer_.defined()) record_scale_before_step();
  timed([&] {
    if (static_batch_) {
      copy_batch(*static_batch_, batch);
      TORCH_CHECK(!(graphed_ && overflow), "mode ", mode_.name, ": a captured step cannot inject an overflow");
      loss = graphed_ ? graphed_->run() : step_->run(*static_batch_, overflow);
    } else {
      loss = step_->run(batch, overflow);
    }
    if (sync_) communication_.push_back(sync_->take_step());
  });
  // What is kept of the step, outside its time: a step's telemetry is not part of the training a
  // user's loop does (inside the timer the gradient norm added 31 us, 11%, to a SimpleNet step;
  // outside it, its operations still slow the next short step by about 2.5%: docs/performance.md).
  loss_buffer_.select(0, steps_done_).copy_(loss);
  grad_norms_.record(*optimizer_);  // the gradients are unscaled after the step (TrainingStep::run)
  ++steps_done_;
}

void ModeSession::metered_step(TensorMemoryProbe& memory) {
  ledger_.begin(memory);
  step();
  ledger_.end(memory);
}

void ModeSession::rewind_to(std::int64_t step) {
  TORCH_CHECK(step >= 0 && step <= steps_done_, "cannot rewind mode ", mode_.name, " to step ", step);
  steps_done_ = step;
}

std::vector<double> ModeSession::losses() const {
  const auto host = loss_buffer_.narrow(0, 0, steps_done_).to(torch::kCPU, torch::kDouble).contiguous();
  return {host.data_ptr<double>(), host.data_ptr<double>() + host.numel()};
}

void ModeSession::record_scale_before_step() {
  auto slot = scale_buffer_.select(0, steps_done_);
  const auto scale = scaler_->scale_on_device();
  // Before the first scale() the scale is still the scaler's initial value, known on the host.
  if (scale.defined()) {
    slot.copy_(scale);
  } else {
    slot.fill_(scaler_->get_scale());
  }
}

std::vector<amp::ScalerStepRecord> ModeSession::scaler_records() const {
  if (!scaler_) return {};
  if (!scale_buffer_.defined()) return scaler_->telemetry();
  const auto scales = scale_buffer_.narrow(0, 0, steps_done_).to(torch::kCPU, torch::kDouble).contiguous();
  const double* scale = scales.data_ptr<double>();
  const double last = scaler_->get_scale();  // after the last step's update
  std::vector<amp::ScalerStepRecord> records;
  for (std::int64_t step = 0; step < steps_done_; ++step) {
    const double next = step + 1 < steps_done_ ? scale[step + 1] : last;
    records.push_back({scale[step], next < scale[step]});
  }
  return records;
}

std::unique_ptr<TrainingStateSnapshot> ModeSession::snapshot_training_state() {
  return std::make_unique<TrainingStateSnapshot>(workload_->module(), *optimizer_, scaler_ ? &*scaler_ : nullptr);
}

}  // namespace ampbench::harness::detail
