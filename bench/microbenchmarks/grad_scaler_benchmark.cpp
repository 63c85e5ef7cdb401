// What a GradScaler step costs on top of the optimizer step it guards, across parameter counts
// (1e3 to 1e8 elements). Forward and backward are left out: gradients are filled once, and the
// scale is 1 so that unscaling leaves them unchanged from one iteration to the next (the fused
// kernel does the same work whatever the scale). bench/grad_scaler_python_reference.py times
// torch.amp.GradScaler on the same model for comparison.
//
//   BM_OptimizerStep/O/L/W     optimizer.step()                            (the baseline)
//   BM_UnscaleAndUpdate/O/L/W  scaler.unscale_(optimizer) + scaler.update() (check + unscale, then
//                              the scale update; no optimizer step)
//   BM_GradScalerStep/O/L/W    scaler.step(optimizer) + scaler.update()    (unscale_ inside)
//   BM_GradScalerStepRecordingNorm/O/L/W   the same with GradNormRecorder::record(optimizer,
//                              scaler) before step: the telemetry's cost is the difference, and
//                              host_syncs_per_step must stay that of BM_GradScalerStep
//   BM_OptimizerStepRecordingNorm/O/L/W    optimizer.step() + record(optimizer): a loop without
//                              a scaler (FP32, BF16); host_syncs_per_step must be 0
//   O: 0 = torch::optim::SGD (one host sync per step), 1 = ampbench FusedSGD (scale-aware: none).
//   L Linear(W, W) layers, SGD with momentum; counters: parameter count, host syncs per step.
#include <benchmark/benchmark.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/linear.h>
#include <torch/optim/sgd.h>

#include "ampbench/amp/fused_optimizers.h"
#include "ampbench/amp/grad_norm_recorder.h"
#include "ampbench/amp/grad_scaler.h"

namespace {

struct StepFixture {
  torch::nn::Sequential model;
  std::unique_ptr<torch::optim::Optimizer> optimizer;
  std::int64_t parameter_count = 0;

  // optimizer_kind: 0 = torch::optim::SGD, 1 = ampbench::amp::FusedSGD.
  StepFixture(std::int64_t optimizer_kind, std::int64_t layers, std::int64_t width) {
    torch::manual_seed(0);
    for (std::int64_t i = 0; i < layers; ++i) {
      model->push_back(torch::nn::Linear(width, width));
    }
    for (auto& param : model->parameters()) {
      param.mutable_grad() = torch::randn_like(param) * 1e-3;
      parameter_count += param.numel();
    }
    // A tiny lr keeps the parameters sane over millions of steps with fixed gradients.
    const auto options = torch::optim::SGDOptions(1e-9).momentum(0.9);
    if (optimizer_kind == 1) {
      optimizer = std::make_unique<ampbench::amp::FusedSGD>(model->parameters(), options);
    } else {
      optimizer = std::make_unique<torch::optim::SGD>(model->parameters(), options);
    }
  }
};

void set_counters(benchmark::State& state, const StepFixture& fixture) {
  state.counters["params"] = static_cast<double>(fixture.parameter_count);
  state.counters["tensors"] = static_cast<double>(fixture.model->parameters().size());
}

// A scaler at scale 1 that never grows, initialised as a loss would initialise it.
ampbench::amp::GradScaler unit_scaler() {
  ampbench::amp::GradScaler scaler(c10::DeviceType::CPU, {.init_scale = 1.0, .growth_interval = std::int64_t{1} << 40});
  (void)scaler.scale(torch::ones({}));
  return scaler;
}

// syncs: the host syncs of the timed loop, as the scaler and the recorder count their own.
void set_counters(benchmark::State& state, const StepFixture& fixture, std::int64_t syncs) {
  set_counters(state, fixture);
  state.counters["host_syncs_per_step"] =
      benchmark::Counter(static_cast<double>(syncs) / static_cast<double>(state.iterations()));
}

void BM_OptimizerStep(benchmark::State& state) {
  torch::set_num_threads(1);
  StepFixture fixture(state.range(0), state.range(1), state.range(2));
  fixture.optimizer->step();  // warm-up: creates (and first touches) the momentum buffers
  for (auto _ : state) {
    fixture.optimizer->step();
  }
  set_counters(state, fixture);
}

void BM_UnscaleAndUpdate(benchmark::State& state) {
  torch::set_num_threads(1);
  StepFixture fixture(state.range(0), state.range(1), state.range(2));
  auto scaler = unit_scaler();
  scaler.unscale_(*fixture.optimizer);  // warm-up, as in every benchmark here
  scaler.update();
  const auto syncs_before = scaler.host_syncs();
  for (auto _ : state) {
    scaler.unscale_(*fixture.optimizer);
    scaler.update();
  }
  set_counters(state, fixture, scaler.host_syncs() - syncs_before);
  scaler.clear_telemetry();
}

void BM_GradScalerStep(benchmark::State& state) {
  torch::set_num_threads(1);
  StepFixture fixture(state.range(0), state.range(1), state.range(2));
  auto scaler = unit_scaler();
  (void)scaler.step(*fixture.optimizer);  // warm-up: the optimizer's first step allocates its state
  scaler.update();
  const auto syncs_before = scaler.host_syncs();
  for (auto _ : state) {
    benchmark::DoNotOptimize(scaler.step(*fixture.optimizer));
    scaler.update();
  }
  set_counters(state, fixture, scaler.host_syncs() - syncs_before);
  scaler.clear_telemetry();
}

void BM_GradScalerStepRecordingNorm(benchmark::State& state) {
  torch::set_num_threads(1);
  StepFixture fixture(state.range(0), state.range(1), state.range(2));
  auto scaler = unit_scaler();
  ampbench::amp::GradNormRecorder recorder;
  recorder.record(*fixture.optimizer, scaler);  // warm-up, as above; allocates the first history buffer
  (void)scaler.step(*fixture.optimizer);
  scaler.update();
  const auto syncs_before = scaler.host_syncs() + recorder.host_syncs();
  for (auto _ : state) {
    recorder.record(*fixture.optimizer, scaler);
    benchmark::DoNotOptimize(scaler.step(*fixture.optimizer));
    scaler.update();
  }
  set_counters(state, fixture, scaler.host_syncs() + recorder.host_syncs() - syncs_before);
  state.counters["norms_recorded"] = static_cast<double>(recorder.size());
  scaler.clear_telemetry();
  recorder.clear();
}

void BM_OptimizerStepRecordingNorm(benchmark::State& state) {
  torch::set_num_threads(1);
  StepFixture fixture(state.range(0), state.range(1), state.range(2));
  ampbench::amp::GradNormRecorder recorder;
  recorder.record(*fixture.optimizer);  // warm-up
  fixture.optimizer->step();
  const auto syncs_before = recorder.host_syncs();
  for (auto _ : state) {
    recorder.record(*fixture.optimizer);
    fixture.optimizer->step();
  }
  set_counters(state, fixture, recorder.host_syncs() - syncs_before);
  recorder.clear();
}

void parameter_counts(benchmark::internal::Benchmark* bench) {
  bench->ArgNames({"fused", "layers", "width"});
  for (const std::int64_t fused : {0, 1}) {
    bench->Args({fused, 1, 31});    //      992 params,   2 tensors (~1e3)
    bench->Args({fused, 4, 64});    //     16.6 k params,   8 tensors
    bench->Args({fused, 64, 64});   //    266   k params, 128 tensors
    bench->Args({fused, 4, 512});   //      1.05 M params,  8 tensors
    bench->Args({fused, 4, 2048});  //     16.8  M params,  8 tensors
    bench->Args({fused, 6, 4096});  //    100.7  M params, 12 tensors (~1e8; 1.2 GB with momentum)
  }
  bench->Unit(benchmark::kMicrosecond);
}

BENCHMARK(BM_OptimizerStep)->Apply(parameter_counts);
BENCHMARK(BM_UnscaleAndUpdate)->Apply(parameter_counts);
BENCHMARK(BM_GradScalerStep)->Apply(parameter_counts);
BENCHMARK(BM_GradScalerStepRecordingNorm)->Apply(parameter_counts);
BENCHMARK(BM_OptimizerStepRecordingNorm)->Apply(parameter_counts);

}  // namespace

BENCHMARK_MAIN();
