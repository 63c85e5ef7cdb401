// What a GradScaler step costs on top of the optimizer step it guards, across parameter counts.
// Forward and backward are left out: gradients are filled once, and the scale is 1 so that
// unscaling leaves them unchanged from one iteration to the next (the fused kernel does the same
// work whatever the scale). bench/grad_scaler_python_reference.py times torch.amp.GradScaler on
// the same model for comparison.
//
//   BM_OptimizerStep/L/W      optimizer.step()                               (the baseline)
//   BM_GradScalerStep/L/W     scaler.step(optimizer) + scaler.update()       (unscale_ inside)
//   L Linear(W, W) layers, SGD with momentum; counters: parameter count, host syncs per step.
#include <benchmark/benchmark.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/linear.h>
#include <torch/optim/sgd.h>

#include "ampbench/amp/grad_scaler.h"

namespace {

struct StepFixture {
  torch::nn::Sequential model;
  std::unique_ptr<torch::optim::SGD> optimizer;
  std::int64_t parameter_count = 0;

  StepFixture(std::int64_t layers, std::int64_t width) {
    torch::manual_seed(0);
    for (std::int64_t i = 0; i < layers; ++i) {
      model->push_back(torch::nn::Linear(width, width));
    }
    for (auto& param : model->parameters()) {
      param.mutable_grad() = torch::randn_like(param) * 1e-3;
      parameter_count += param.numel();
    }
    // A tiny lr keeps the parameters sane over millions of steps with fixed gradients.
    optimizer = std::make_unique<torch::optim::SGD>(model->parameters(), torch::optim::SGDOptions(1e-9).momentum(0.9));
  }
};

void set_counters(benchmark::State& state, const StepFixture& fixture) {
  state.counters["params"] = static_cast<double>(fixture.parameter_count);
  state.counters["tensors"] = static_cast<double>(fixture.model->parameters().size());
}

void BM_OptimizerStep(benchmark::State& state) {
  torch::set_num_threads(1);
  StepFixture fixture(state.range(0), state.range(1));
  for (auto _ : state) {
    fixture.optimizer->step();
  }
  set_counters(state, fixture);
}

void BM_GradScalerStep(benchmark::State& state) {
  torch::set_num_threads(1);
  StepFixture fixture(state.range(0), state.range(1));
  ampbench::amp::GradScaler scaler(c10::DeviceType::CPU, {.init_scale = 1.0, .growth_interval = std::int64_t{1} << 40});
  (void)scaler.scale(torch::ones({}));  // initialises the scale, as the loss would
  const auto syncs_before = scaler.host_syncs();
  for (auto _ : state) {
    benchmark::DoNotOptimize(scaler.step(*fixture.optimizer));
    scaler.update();
  }
  set_counters(state, fixture);
  state.counters["host_syncs_per_step"] = benchmark::Counter(static_cast<double>(scaler.host_syncs() - syncs_before) /
                                                             static_cast<double>(state.iterations()));
  scaler.clear_telemetry();
}

void parameter_counts(benchmark::internal::Benchmark* bench) {
  bench->ArgNames({"layers", "width"});
  bench->Args({4, 64});    //     16.6 k params,   8 tensors
  bench->Args({64, 64});   //    266   k params, 128 tensors
  bench->Args({4, 512});   //      1.05 M params,  8 tensors
  bench->Args({4, 2048});  //     16.8  M params,  8 tensors
  bench->Unit(benchmark::kMicrosecond);
}

BENCHMARK(BM_OptimizerStep)->Apply(parameter_counts);
BENCHMARK(BM_GradScalerStep)->Apply(parameter_counts);

}  // namespace

BENCHMARK_MAIN();
