// What each precision buys the workloads' matrix products and convolutions on this CPU: linear
// (addmm) and conv2d at the exact shapes of the workloads' presets, forward and backward, in
// float32, float16 and bfloat16, with FLOP/s as a counter. Operands are created in the dtype, so
// the figures are the kernels alone, without autocast's casts.
//
//   Linear/DTYPE/LAYER/forward    at::linear(x[M,K], W[N,K], b[N]): 2*M*K*N FLOP
//   Linear/DTYPE/LAYER/backward   the gradients of x, W and b from one output gradient: 4*M*K*N
//   Conv2d/DTYPE/LAYER/forward    at::conv2d, k3 p1 stride 1: 2*N*Cout*H*W*Cin*9 FLOP
//   Conv2d/DTYPE/LAYER/backward   the gradients of input, weight and bias: twice the forward
//   Backward is torch::autograd::grad over a graph of that single op, kept between iterations; the
//   input's gradient is computed too (as for every layer but a network's first). Bias work is not
//   counted. Counters: flops (per second of wall time), threads.
//
// One intra-op thread, so that the figures compare across machines and runs. Each case runs once
// untimed first (oneDNN primitive creation, allocator). On a CPU without native float16/bfloat16
// GEMM (AVX2 only; docs/performance.md) the low-precision cases are 10-100x slower, up to a second
// per iteration: they run with MinTime(0.2 s), and the whole binary takes about a minute there
// (63 s on the 2-core AMD EPYC); float32 follows --benchmark_min_time. For medians with their spread:
//   gemm_conv_benchmark --benchmark_repetitions=5 --benchmark_enable_random_interleaving=true
#include <ATen/Parallel.h>
#include <benchmark/benchmark.h>
#include <torch/csrc/autograd/autograd.h>
#include <torch/types.h>

#include <array>
#include <string>
#include <vector>

namespace {

constexpr int kThreads = 1;
constexpr double kLowPrecisionMinTimeS = 0.2;

struct LinearShape {
  const char* layer;
  std::int64_t rows;  // batch, or batch * sequence for the transformer's token-wise layers
  std::int64_t inputs;
  std::int64_t outputs;
};

// The layers of workloads/src/*.cpp at the `default` preset, and the transformer's at `seed` too.
constexpr std::array kLinearShapes{
    // SimpleNet: MLP 32->128->128->1, batch 128.
    LinearShape{"simplenet.fc1", 128, 32, 128},
    LinearShape{"simplenet.fc2", 128, 128, 128},
    LinearShape{"simplenet.head", 128, 128, 1},
    // SimpleCNN: fc 64*8*8 -> 10, batch 32.
    LinearShape{"simplecnn.fc", 32, 4096, 10},
    // TransformerBlock: d 128, ffn 512, batch 4 x sequence 64.
    LinearShape{"transformer-d128.qkv", 256, 128, 384},
    LinearShape{"transformer-d128.fc1", 256, 128, 512},
    LinearShape{"transformer-d128.fc2", 256, 512, 128},
    // TransformerBlock at `seed`: d 256, ffn 1024, batch 8 x sequence 128.
    LinearShape{"transformer-d256.qkv", 1024, 256, 768},
    LinearShape{"transformer-d256.fc1", 1024, 256, 1024},
    LinearShape{"transformer-d256.fc2", 1024, 1024, 256},
};

struct ConvShape {
  const char* layer;
  std::int64_t batch;
  std::int64_t in_channels;
  std::int64_t out_channels;
  std::int64_t size;  // square input, kept by padding 1
};

// SimpleCNN: conv1 sees the 3x32x32 images, conv2 the 32 channels after a 2x2 pool; batch 32 is
// the `default` preset, 64 the `seed` (the tutorial's).
constexpr std::array kConvShapes{
    ConvShape{"simplecnn.conv1-b32", 32, 3, 32, 32},
    ConvShape{"simplecnn.conv2-b32", 32, 32, 64, 16},
    ConvShape{"simplecnn.conv1-b64", 64, 3, 32, 32},
    ConvShape{"simplecnn.conv2-b64", 64, 32, 64, 16},
};

constexpr std::array kDtypes{c10::ScalarType::Float, c10::ScalarType::Half, c10::ScalarType::BFloat16};

torch::Tensor random_tensor(at::IntArrayRef sizes, c10::ScalarType dtype, bool requires_grad) {
  return torch::randn(sizes, torch::TensorOptions().dtype(dtype).requires_grad(requires_grad));
}

void set_counters(benchmark::State& state, double flops_per_iteration) {
  state.counters["flops"] = benchmark::Counter(flops_per_iteration, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["threads"] = at::get_num_threads();
}

// Times `op` after one untimed call.
template <typename Op>
void time_op(benchmark::State& state, double flops_per_iteration, const Op& op) {
  auto warm_up = op();
  benchmark::DoNotOptimize(warm_up);
  for (auto _ : state) {
    auto result = op();
    benchmark::DoNotOptimize(result);
  }
  set_counters(state, flops_per_iteration);
}

// The backward of the single op that produced `output`: the gradients of `inputs` from one random
// output gradient. The graph is retained so each iteration runs the same backward kernels, and
// autograd::grad returns the gradients instead of accumulating them into .grad.
void time_backward(benchmark::State& state, double flops_per_iteration, const torch::Tensor& output,
                   const std::vector<torch::Tensor>& inputs) {
  const auto output_grad = torch::randn_like(output);
  time_op(state, flops_per_iteration,
          [&] { return torch::autograd::grad({output}, inputs, {output_grad}, /*retain_graph=*/true); });
}

void linear_benchmark(benchmark::State& state, LinearShape shape, c10::ScalarType dtype, bool backward) {
  at::set_num_threads(kThreads);
  const auto x = random_tensor({shape.rows, shape.inputs}, dtype, backward);
  const auto weight = random_tensor({shape.outputs, shape.inputs}, dtype, backward);
  const auto bias = random_tensor({shape.outputs}, dtype, backward);
  const double forward_flops = 2.0 * static_cast<double>(shape.rows * shape.inputs * shape.outputs);
  if (backward) {
    time_backward(state, 2.0 * forward_flops, at::linear(x, weight, bias), {x, weight, bias});
  } else {
    time_op(state, forward_flops, [&] { return at::linear(x, weight, bias); });
  }
}

void conv_benchmark(benchmark::State& state, ConvShape shape, c10::ScalarType dtype, bool backward) {
  at::set_num_threads(kThreads);
  constexpr std::int64_t kKernel = 3;
  const auto input = random_tensor({shape.batch, shape.in_channels, shape.size, shape.size}, dtype, backward);
  const auto weight = random_tensor({shape.out_channels, shape.in_channels, kKernel, kKernel}, dtype, backward);
  const auto bias = random_tensor({shape.out_channels}, dtype, backward);
  const auto conv = [&] { return at::conv2d(input, weight, bias, /*stride=*/1, /*padding=*/1); };
  const double forward_flops = 2.0 * static_cast<double>(shape.batch * shape.out_channels * shape.size * shape.size *
                                                         shape.in_channels * kKernel * kKernel);
  if (backward) {
    time_backward(state, 2.0 * forward_flops, conv(), {input, weight, bias});
  } else {
    time_op(state, forward_flops, conv);
  }
}

template <typename Shapes, typename Body>
void register_cases(const char* op, const Shapes& shapes, Body body) {
  for (const auto dtype : kDtypes) {
    for (const auto& shape : shapes) {
      for (const bool backward : {false, true}) {
        const auto name = std::string(op) + "/" + std::string(c10::getDtypeNames(dtype).first) + "/" + shape.layer +
                          (backward ? "/backward" : "/forward");
        auto* registered = benchmark::RegisterBenchmark(name.c_str(), body, shape, dtype, backward);
        registered->UseRealTime()->Unit(benchmark::kMicrosecond);
        if (dtype != c10::ScalarType::Float) registered->MinTime(kLowPrecisionMinTimeS);
      }
    }
  }
}

[[maybe_unused]] const bool kRegistered = [] {
  register_cases("Linear", kLinearShapes, linear_benchmark);
  register_cases("Conv2d", kConvShapes, conv_benchmark);
  return true;
}();

}  // namespace

BENCHMARK_MAIN();
