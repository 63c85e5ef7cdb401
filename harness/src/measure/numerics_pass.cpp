// run_numerics (numerics_pass.h): each mode's fixed-length training run with its evaluations, and
// FP32's noise-floor run.
#include "measure/numerics_pass.h"

#include <ampbench/amp/grad_scaler.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <optional>

#include "ampbench/harness/mode.h"
#include "ampbench/reports/report.h"
#include "ampbench/workloads/preset.h"
#include "ampbench/workloads/registry.h"
#include "error_text.h"
#include "machine/device_hooks.h"
#include "measure/graphed_step.h"
#include "measure/layer_ranges.h"
#include "measure/mode_session.h"
#include "measure/training_step.h"

namespace ampbench::harness {
namespace {

using Clock = std::chrono::steady_clock;
constexpr const char* kFloorPerturbation = "data order reversed";

// Mean float32 loss over the held-out batches, with the module in eval mode and no autocast: the
// trained weights are judged, not the mode's inference precision.
double evaluate(workloads::Workload& workload, const std::vector<workloads::Batch>& held_out) {
  (void)detail::apply_precision(find_mode(reports::kReferenceMode));
  torch::NoGradGuard no_grad;
  auto& module = workload.module();
  module.eval();
  double sum = 0.0;
  for (const auto& batch : held_out) sum += workload.loss(batch).item<double>();
  module.train();
  return sum / static_cast<double>(held_out.size());
}

struct PassPlan {
  const WorkloadTask& task;
  c10::Device device;
  std::vector<std::int64_t> eval_steps;
  const WorkloadFactory& make;
  const WorkloadProgressSink& progress;
};

// The GradScaler's start-up, before the pass (reports::ScaleCalibration says why): batch 0 from the
// seed's weights in a workload of its own, tried at 2^16, 2^15, ... 1 until its gradients fit. An
// overflowing try changes no weight; the workload is dropped either way.
reports::ScaleCalibration calibrate_scale(const PassPlan& plan, const Mode& mode) {
  (void)detail::apply_precision(mode);
  auto workload = plan.make(detail::workload_options(plan.task.config, plan.device));
  auto optimizer = workload->make_optimizer();
  amp::GradScaler scaler(plan.device.type());
  const detail::TrainingStep step{*workload, *optimizer, &scaler, mode, plan.device.type()};
  const auto batch = workload->make_batch(0);
  reports::ScaleCalibration calibration;
  calibration.initial_scale = amp::GradScalerOptions{}.init_scale;
  for (double scale = calibration.initial_scale; scale >= 1.0; scale /= 2.0) {
    (void)detail::apply_precision(mode);
    (void)step.run(batch, false);
    if (!scaler.telemetry().back().skipped) {
      calibration.settled = true;
      return calibration;
    }
    ++calibration.skipped_tries;
  }
  return calibration;
}

// One mode's training run from the seed's weights; step s trains on batch s, or on batch
// steps - 1 - s when reversed (the floor: the same batches in the other order).
reports::NumericsRun train(const PassPlan& plan, const Mode& mode, bool reversed) {
  const auto start = Clock::now();
  const auto& config = plan.task.config;
  const std::int64_t steps = *config.numerics_steps;
  reports::NumericsRun run;
  std::optional<amp::GradScaler> scaler;
  if (mode.grad_scaler) {
    run.scale_calibration = calibrate_scale(plan, mode);
    amp::GradScalerOptions options;
    options.init_scale = run.scale_calibration->start_scale();
    scaler.emplace(plan.device.type(), options);
  }
  (void)detail::apply_precision(mode);
  auto workload = plan.make(detail::workload_options(config, plan.device));
  auto optimizer = workload->make_optimizer();
  // The floor run is FP32 again: nothing new to see. A graphed mode's replays run no forward hooks.
  std::optional<detail::LayerRangeRecorder> ranges;
  if (!reversed && !mode.graphed) ranges.emplace(workload->module());
  const detail::TrainingStep step{*workload,          *optimizer, scaler ? &*scaler : nullptr, mode,
                                  plan.device.type(), nullptr,    ranges ? &*ranges : nullptr};
  // A graphed mode trains from the static batch its captured step reads, refilled every step.
  std::optional<workloads::Batch> inputs;
  std::unique_ptr<detail::GraphedStep> graphed;
  if (mode.graphed) {
    const auto first = workload->make_batch(reversed ? steps - 1 : 0);
    inputs = workloads::Batch{first.input.clone(), first.target.clone()};
    graphed = std::make_unique<detail::GraphedStep>(step, *inputs, plan.device);
  }
  const auto train_step = [&](const workloads::Batch& batch) {
    if (!graphed) return step.run(batch, false);
    detail::copy_batch(*inputs, batch);
    return graphed->run();
  };
  std::vector<workloads::Batch> held_out;
  for (std::int64_t j = 0; j < kNumericsEvalBatches; ++j)
    held_out.push_back(workload->make_batch(kFirstHeldOutBatch + j));

  const auto stage = reversed ? WorkloadStage::kNumericsFloor : WorkloadStage::kNumerics;
  auto next_evaluation = plan.eval_steps.begin();
  for (std::int64_t done = 0;; ++done) {
    const bool evaluated = next_evaluation != plan.eval_steps.end() && *next_evaluation == done;
    if (evaluated) {
      run.eval_loss.push_back(evaluate(*workload, held_out));
      ++next_evaluation;
      if (plan.progress) plan.progress({stage, mode.name, 0, done, 0.0, 0.0, steps});
    }
    if (done == steps) break;
    (void)detail::apply_precision(mode);
    const auto batch = workload->make_batch(reversed ? steps - 1 - done : done);
    if (ranges) ranges->begin_step(done, evaluated);  // the ranges in full after each evaluation
    run.train_loss.push_back(train_step(batch).item<double>());
    if (ranges) ranges->end_step();
  }
  if (ranges)
    run.layers = ranges->finish(scaler ? scaler->telemetry() : std::vector<amp::ScalerStepRecord>{}, run.train_loss);
  run.wall_s = std::chrono::duration<double>(Clock::now() - start).count();
  return run;
}

}  // namespace

std::vector<std::int64_t> numerics_eval_steps(std::int64_t steps) {
  const std::int64_t every = std::max<std::int64_t>(1, (steps + kNumericsEvaluations - 1) / kNumericsEvaluations);
  std::vector<std::int64_t> at;
  for (std::int64_t step = 0; step < steps; step += every) at.push_back(step);
  at.push_back(steps);
  return at;
}

reports::Numerics planned_numerics(std::int64_t steps) {
  reports::Numerics numerics;
  numerics.steps = steps;
  numerics.eval_batches = kNumericsEvalBatches;
  numerics.eval_steps = numerics_eval_steps(steps);
  return numerics;
}

std::vector<reports::Numerics> run_numerics(const WorkloadTask& task, const WorkloadProgressSink& progress,
                                            const WorkloadFactory& make) {
  const auto& modes = task.modes;
  const bool has_reference =
      std::any_of(modes.begin(), modes.end(), [](const auto& name) { return is_reference_mode(find_mode(name)); });
  if (!task.config.numerics_steps || *task.config.numerics_steps == 0 || !has_reference) return {};
  const WorkloadFactory registry = [&task](const workloads::WorkloadOptions& options) {
    return workloads::make_workload(task.workload, options);
  };
  const c10::Device device(task.config.device);
  detail::require_device(device);
  const PassPlan plan{task, device, numerics_eval_steps(*task.config.numerics_steps), make ? make : registry, progress};
  std::vector<reports::Numerics> results;
  for (const auto& name : modes) {
    const Mode& mode = find_mode(name);
    auto numerics = planned_numerics(*task.config.numerics_steps);
    try {
      numerics.run = train(plan, mode, false);
      if (is_reference_mode(mode)) {
        numerics.floor = train(plan, mode, true);
        numerics.floor_perturbation = kFloorPerturbation;
      }
    } catch (const std::exception& error) {
      numerics.error = detail::error_text(error);
      numerics.floor.reset();
    }
    detail::release_cached_memory(device);
    results.push_back(std::move(numerics));
  }
  return results;
}

}  // namespace ampbench::harness
