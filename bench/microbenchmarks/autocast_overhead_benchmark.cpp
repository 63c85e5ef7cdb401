// What ampbench's autocast costs against LibTorch's native autocast on the same model: one
// training step (zero_grad, forward under the scope, MSE loss, backward) of a Linear/ReLU stack on
// CPU, bfloat16.
//
//   BM_Step_Ampbench/L/W   ampbench::amp::Autocast scope (ampbench's boxed kernels on AutocastCPU)
//   BM_Step_Native/L/W     LibTorch's native autocast kernels (ampbench's released first)
//   BM_Step_Fp32/L/W       no autocast (for scale: on CPUs without native bf16 GEMMs AMP is slower)
//   L Linear(W, W) layers + ReLU, batch 16, one thread; counters: autocast ops per step.
//   BM_Addmm_Ampbench / BM_Addmm_Native / BM_Addmm_None: one 8x8 addmm inside ampbench's scope,
//   inside the native one, and with no autocast at all (plain float32): the per-op cost of each
//   autocast kernel is its time minus None's.
//   BM_Step_Alternating/L/W: blocks of ampbench and native steps in turn; counter ours_over_native.
//
// Run with interleaved repetitions so that load drifting on a shared machine hits all modes alike:
//   autocast_overhead_benchmark --benchmark_repetitions=15 --benchmark_enable_random_interleaving=true
// and compare the medians: target ampbench/native <= 1.03.
#include <benchmark/benchmark.h>
#include <torch/nn/modules/activation.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/linear.h>

#include "ampbench/amp/autocast.h"
#include "ampbench/amp/op_counters.h"
#include "native_loop/native_autocast.h"

#include <array>
#include <chrono>
#include <optional>

namespace {

constexpr auto kCpu = c10::DeviceType::CPU;
constexpr std::int64_t kBatch = 16;

struct StepFixture {
  torch::nn::Sequential model;
  torch::Tensor input;
  torch::Tensor target;

  StepFixture(std::int64_t layers, std::int64_t width) {
    torch::manual_seed(0);
    for (std::int64_t i = 0; i < layers; ++i) {
      model->push_back(torch::nn::Linear(width, width));
      model->push_back(torch::nn::ReLU());
    }
    input = torch::randn({kBatch, width});
    target = torch::randn({kBatch, width});
  }
};

enum class Mode { kAmpbench, kNative, kFp32 };

// The autocast scope a mode runs under: ampbench's, LibTorch's native one, or none.
class ModeScope {
 public:
  explicit ModeScope(Mode mode) {
    if (mode == Mode::kAmpbench) {
      ours_.emplace(kCpu, at::kBFloat16);
    } else if (mode == Mode::kNative) {
      native_.emplace(kCpu, at::kBFloat16);
    }
  }

 private:
  std::optional<ampbench::amp::Autocast> ours_;
  std::optional<ampbench::bench::NativeAutocast> native_;
};

void train_step(StepFixture& fixture, Mode mode) {
  fixture.model->zero_grad();
  torch::Tensor loss;
  {
    const ModeScope scope(mode);
    loss = torch::mse_loss(fixture.model->forward(fixture.input), fixture.target);
  }
  loss.backward();
}

void run_steps(benchmark::State& state, Mode mode) {
  torch::set_num_threads(1);
  if (mode == Mode::kNative) {
    ampbench::amp::release_autocast_kernels();
  }
  StepFixture fixture(state.range(0), state.range(1));
  train_step(fixture, mode);  // warm-up: registration (ampbench's kernels), allocator, first-call paths
  ampbench::amp::reset_op_counts();
  for (auto _ : state) {
    train_step(fixture, mode);
  }
  std::int64_t calls = 0;
  for (const auto& count : ampbench::amp::op_counts()) {
    calls += count.calls;
  }
  state.counters["autocast_ops_per_step"] =
      static_cast<double>(calls) / static_cast<double>(std::max<std::int64_t>(state.iterations(), 1));
}

void BM_Step_Ampbench(benchmark::State& state) { run_steps(state, Mode::kAmpbench); }
void BM_Step_Native(benchmark::State& state) { run_steps(state, Mode::kNative); }
void BM_Step_Fp32(benchmark::State& state) { run_steps(state, Mode::kFp32); }

// One small addmm (8x8, float32 inputs, so both autocast kernels cast; kFp32 runs it as it is).
void run_addmm(benchmark::State& state, Mode mode) {
  torch::set_num_threads(1);
  if (mode == Mode::kNative) {
    ampbench::amp::release_autocast_kernels();
  }
  const auto bias = torch::randn({8, 8});
  const auto a = torch::randn({8, 8});
  const auto b = torch::randn({8, 8});
  const ModeScope scope(mode);
  for (auto _ : state) {
    benchmark::DoNotOptimize(torch::addmm(bias, a, b));
  }
}

void BM_Addmm_Ampbench(benchmark::State& state) { run_addmm(state, Mode::kAmpbench); }
void BM_Addmm_Native(benchmark::State& state) { run_addmm(state, Mode::kNative); }
void BM_Addmm_None(benchmark::State& state) { run_addmm(state, Mode::kFp32); }
BENCHMARK(BM_Addmm_Ampbench)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Addmm_Native)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Addmm_None)->Unit(benchmark::kMicrosecond);

// ampbench and native in alternating blocks of steps inside one benchmark, so both see the same
// machine load; counter ours_over_native = (ampbench step time) / (native step time), blocks summed.
// Switching registers and releases ampbench's kernels between blocks, outside the timed steps.
void BM_Step_Alternating(benchmark::State& state) {
  torch::set_num_threads(1);
  StepFixture fixture(state.range(0), state.range(1));
  constexpr int kStepsPerBlock = 8;
  std::array<double, 2> seconds{};  // ampbench, native
  const auto timed_block = [&](Mode mode) {
    train_step(fixture, mode);  // warm-up after the switch
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kStepsPerBlock; ++i) {
      train_step(fixture, mode);
    }
    seconds[mode == Mode::kAmpbench ? 0 : 1] +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  for (auto _ : state) {
    timed_block(Mode::kAmpbench);
    ampbench::amp::release_autocast_kernels();
    timed_block(Mode::kNative);
  }
  state.counters["ours_over_native"] = seconds[0] / seconds[1];
  state.counters["native_step_us"] = 1e6 * seconds[1] / (kStepsPerBlock * static_cast<double>(state.iterations()));
}

void sizes(benchmark::internal::Benchmark* b) {
  b->Args({3, 16})->Args({3, 64})->Args({3, 256})->Unit(benchmark::kMicrosecond);
}

BENCHMARK(BM_Step_Ampbench)->Apply(sizes);
BENCHMARK(BM_Step_Native)->Apply(sizes);
BENCHMARK(BM_Step_Fp32)->Apply(sizes);
BENCHMARK(BM_Step_Alternating)->Apply(sizes);

}  // namespace

BENCHMARK_MAIN();
