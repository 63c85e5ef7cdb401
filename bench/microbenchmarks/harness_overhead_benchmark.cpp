// What the harness adds to each timed CPU step, against the SimpleCNN FP32 training step it times
// (target: under 1% of that step); --workload=NAME takes another built-in workload's step
// (SimpleNet's is the smallest, where a microsecond shows), --mode=fp16|bf16 an AMP mode's: the
// bare step then runs LibTorch's native autocast and loss scaling (native_training_step.h), the
// harnessed one ampbench's, so the difference is all that ampbench adds to what a user's loop
// pays, its amp library's kernels included. Each timed step of the runner is
// detail::timed_step(): the mode's memory ledger (two reads of the counting CPU allocator and a
// peak reset) and the page-fault counters around two steady_clock reads around the step, then,
// outside the clock, its loss copied into the session's buffer and its gradient norm recorded; the
// counting allocator is under every tensor allocation. After each round the runner summarises the rounds so far
// (the stopping rule): BM_RoundSummary.
//
//   BM_Step_Bare        the SimpleCNN `default` FP32 step (batch 32) as a plain loop writes it
//                       through the workloads API: zero_grad, loss, backward, optimizer step, over 16
//                       pre-made batches, on LibTorch's own CPU allocator (and, in an AMP mode, its
//                       own autocast kernels: ampbench's are released before it). Counter:
//                       cpu_allocations_per_step (counted on untimed steps)
//   BM_Step_Harnessed   the same step as the runner times it: a ModeSession stepped by timed_step()
//   BM_Step_Paired      one bare and one harnessed step per iteration, in alternating order, so that
//                       drift hits both alike (in an AMP mode, each after switching the autocast
//                       kernels and one untimed step of its own, as the runner's blocks). Counters,
//                       medians over the pairs: bare_step_us,
//                       overhead_us_per_step (what timed_step() costs beyond the bare step, with its
//                       95% CI: overhead_us_ci_low/high), overhead_fraction (overhead / bare step),
//                       and recorded_excess_us (the step time the runner records, minus the bare
//                       step: how far the harness moves the figure itself, with its CI)
//   BM_Ledger, BM_TimerPair, BM_RoundSummary/N   the parts (N rounds summarised, with the paired
//                       ratio against a reference)
//   BM_AllocFree/counting:0|1/bytes:B   one allocation and free through LibTorch's CPU allocator (0)
//                       or the counting one (1)
// The per-step overhead from the parts, more precise than the paired difference of two noisy
// steps: BM_Ledger + BM_TimerPair + cpu_allocations_per_step * (AllocFree counting:1 - counting:0).
//
// The counting allocator has no uninstall: CpuTensorMemoryMeter::install() keeps it for the life
// of the process. But c10::SetCPUAllocator replaces the current CPU allocator whenever the new
// priority is at least as high, so every benchmark here selects the one it needs (LibTorch's for
// bare steps, the counting one for harnessed steps) at the highest priority, and the comparison
// holds in one process under any order, random interleaving included. A tensor keeps the deleter of
// the allocator it came from, so switching between steps is safe; no switch happens inside a step.
//
// One intra-op thread (the harness uses LibTorch's default: with more threads the step is shorter
// and the same overhead a larger fraction). Run with interleaved repetitions so that load drifting
// on a shared machine hits all benchmarks alike:
//   harness_overhead_benchmark --benchmark_repetitions=10 --benchmark_enable_random_interleaving=true
#include <ATen/Parallel.h>
#include <benchmark/benchmark.h>
#include <c10/core/CPUAllocator.h>

#include "ampbench/amp/autocast.h"
#include "ampbench/harness/mode.h"
#include "ampbench/reports/stats.h"
#include "ampbench/workloads/registry.h"
#include "measure/interleaved_rounds.h"
#include "measure/memory_meters.h"
#include "measure/mode_session.h"
#include "native_loop/native_training_step.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <iostream>
#include <limits>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
namespace detail = ampbench::harness::detail;
// The run's defaults at the CPU suite's sizes (what a plan resolves "auto" to on a CPU).
const ampbench::reports::RunConfig kDefaults = [] {
  ampbench::reports::RunConfig config;
  config.preset = "default";
  return config;
}();

constexpr int kThreads = 1;
using detail::kBatchPool;  // the runner's pool of pre-generated batches

double seconds_between(Clock::time_point start, Clock::time_point end) {
  return std::chrono::duration<double>(end - start).count();
}

struct CpuAllocators {
  c10::Allocator* plain;     // LibTorch's, as a program without the harness has it
  c10::Allocator* counting;  // CpuTensorMemoryMeter's
};

const CpuAllocators& cpu_allocators() {
  static const CpuAllocators allocators = [] {
    c10::Allocator* plain = c10::GetCPUAllocator();
    (void)ampbench::harness::CpuTensorMemoryMeter::install();
    return CpuAllocators{plain, c10::GetCPUAllocator()};
  }();
  return allocators;
}

// New CPU tensors come from `allocator` from now on (see the header comment for why this is safe).
void use_cpu_allocator(c10::Allocator* allocator) {
  c10::SetCPUAllocator(allocator, std::numeric_limits<std::uint8_t>::max());
}

// Forwards to another allocator and counts the calls: how many allocations a step makes.
class AllocationCounter final : public c10::Allocator {
 public:
  explicit AllocationCounter(c10::Allocator* inner) : inner_(inner) {}

  c10::DataPtr allocate(std::size_t bytes) override {
    ++count_;
    return inner_->allocate(bytes);
  }
  void copy_data(void* dest, const void* src, std::size_t count) const override { default_copy_data(dest, src, count); }
  c10::DeleterFnPtr raw_deleter() const override { return inner_->raw_deleter(); }

  [[nodiscard]] std::int64_t count() const { return count_.load(); }

 private:
  c10::Allocator* inner_;
  std::atomic<std::int64_t> count_{0};
};

// The workload whose step is measured: --workload=NAME, SimpleCNN by default.
std::string& workload_name() {
  static std::string name = "simplecnn";
  return name;
}

// The mode whose step is measured: --mode=NAME, fp32 by default.
std::string& mode_name() {
  static std::string name = "fp32";
  return name;
}

// The lower-precision dtype the mode autocasts to; empty for fp32.
std::optional<at::ScalarType> autocast_dtype() { return ampbench::bench::native_step_modes().at(mode_name()); }

// Which autocast kernels the next step runs: LibTorch's for a bare step, ampbench's for a harnessed
// one (an Autocast scope registers them, here outside any timed step). Nothing to switch in fp32.
void use_native_autocast() {
  if (autocast_dtype()) ampbench::amp::release_autocast_kernels();
}
void use_ampbench_autocast() {
  if (const auto dtype = autocast_dtype()) {
    const ampbench::amp::Autocast registers(c10::DeviceType::CPU, *dtype);
  }
}

// The workload's training step in the mode as a plain loop writes it through the workloads API.
class BareStep {
 public:
  // WorkloadOptions{}: the `default` preset, seed 0, on the CPU.
  BareStep()
      : workload_(ampbench::workloads::make_workload(workload_name(), ampbench::workloads::WorkloadOptions{})),
        optimizer_(workload_->make_optimizer()),
        step_(*workload_, *optimizer_, autocast_dtype()) {
    for (std::int64_t index = 0; index < kBatchPool; ++index) batches_.push_back(workload_->make_batch(index));
  }

  // One step on the next batch; returns the loss, still attached to its graph.
  torch::Tensor run() { return step_.run(batches_[next_++ % batches_.size()]); }

  // The runner's warm-up: first-call paths, oneDNN primitives, the optimizer's state.
  void warm_up() {
    for (std::int64_t step = 0; step < kDefaults.warmup; ++step) (void)run();
  }

 private:
  std::unique_ptr<ampbench::workloads::Workload> workload_;
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
  ampbench::bench::NativeTrainingStep step_;
  std::vector<ampbench::workloads::Batch> batches_;
  std::size_t next_ = 0;
};

double allocations_per_step(BareStep& step) {
  constexpr int kSteps = 4;
  AllocationCounter counter(cpu_allocators().plain);
  use_cpu_allocator(&counter);
  for (int i = 0; i < kSteps; ++i) (void)step.run();
  use_cpu_allocator(cpu_allocators().plain);
  return static_cast<double>(counter.count()) / kSteps;
}

// The workload's mode as the runner steps it, loss buffer rewound when full (as a new cell's).
class HarnessedStep {
 public:
  HarnessedStep()
      : memory_(c10::Device(c10::kCPU)),
        timer_(c10::Device(c10::kCPU)),
        session_(task(), ampbench::harness::find_mode(mode_name()), c10::Device(c10::kCPU), memory_,
                 kDefaults.max_steps) {
    for (std::int64_t step = 0; step < kDefaults.warmup; ++step) session_.metered_step(memory_);
  }
  // The step time the runner recorded for the last run().
  [[nodiscard]] double last_recorded_s() const { return host_seconds_.back(); }
  void run() {
    if (session_.steps_done() >= kDefaults.max_steps) {
      session_.rewind_to(kDefaults.warmup);
      host_seconds_.clear();
      faults_ = {};
    }
    detail::timed_step(session_, memory_, timer_, host_seconds_, faults_);
  }

 private:
  static const ampbench::harness::WorkloadTask& task() {
    static const ampbench::harness::WorkloadTask task{kDefaults, workload_name(), {mode_name()}, 0, {}, {}};
    return task;
  }
  detail::TensorMemoryProbe memory_;
  detail::StepTimer timer_;
  detail::ModeSession session_;
  std::vector<double> host_seconds_;
  detail::StepFaults faults_;
};

void BM_Step_Bare(benchmark::State& state) {
  at::set_num_threads(kThreads);
  use_cpu_allocator(cpu_allocators().plain);
  use_native_autocast();
  BareStep step;
  step.warm_up();
  state.counters["cpu_allocations_per_step"] = allocations_per_step(step);
  for (auto _ : state) {
    auto loss = step.run();
    benchmark::DoNotOptimize(loss);
  }
  state.counters["threads"] = kThreads;
}

void BM_Step_Harnessed(benchmark::State& state) {
  at::set_num_threads(kThreads);
  use_cpu_allocator(cpu_allocators().counting);  // before the workload, as in the runner
  use_ampbench_autocast();
  HarnessedStep step;
  for (auto _ : state) step.run();
  state.counters["threads"] = kThreads;
}

// The paired steps' figures as counters: the bare step, what the harness adds to it (its time
// minus the bare step's in the same pair) and what it records beyond the bare step.
void report_overhead(benchmark::State& state, const std::vector<double>& bare_s, const std::vector<double>& overhead_s,
                     const std::vector<double>& excess_s) {
  const auto bare = ampbench::reports::summarize(bare_s);
  const auto overhead = ampbench::reports::summarize(overhead_s);
  state.counters["bare_step_us"] = 1e6 * bare.median;
  state.counters["overhead_us_per_step"] = 1e6 * overhead.median;
  state.counters["overhead_us_ci_low"] = 1e6 * overhead.ci_low;
  state.counters["overhead_us_ci_high"] = 1e6 * overhead.ci_high;
  state.counters["overhead_fraction"] = overhead.median / bare.median;
  const auto excess = ampbench::reports::summarize(excess_s);
  state.counters["recorded_excess_us"] = 1e6 * excess.median;
  state.counters["recorded_excess_us_ci_low"] = 1e6 * excess.ci_low;
  state.counters["recorded_excess_us_ci_high"] = 1e6 * excess.ci_high;
  state.counters["threads"] = kThreads;
}

void BM_Step_Paired(benchmark::State& state) {
  at::set_num_threads(kThreads);
  const auto& allocators = cpu_allocators();
  use_cpu_allocator(allocators.counting);
  HarnessedStep harnessed;
  use_cpu_allocator(allocators.plain);
  use_native_autocast();
  BareStep step;
  step.warm_up();
  // Switching the autocast kernels rebuilds dispatch tables: the first step after it is not timed.
  const bool switches = autocast_dtype().has_value();
  const auto time_bare = [&] {
    use_cpu_allocator(allocators.plain);
    if (switches) {
      use_native_autocast();
      (void)step.run();
    }
    const auto start = Clock::now();
    {
      auto loss = step.run();
      benchmark::DoNotOptimize(loss);
    }
    return seconds_between(start, Clock::now());
  };
  const auto time_harnessed = [&] {
    use_cpu_allocator(allocators.counting);
    if (switches) {
      use_ampbench_autocast();
      harnessed.run();
    }
    const auto start = Clock::now();
    harnessed.run();
    return seconds_between(start, Clock::now());
  };
  std::vector<double> bare_s;
  std::vector<double> overhead_s;
  std::vector<double> excess_s;
  bool bare_first = true;
  for (auto _ : state) {
    double bare_step = 0.0;
    double harnessed_step = 0.0;
    if (bare_first) {
      bare_step = time_bare();
      harnessed_step = time_harnessed();
    } else {
      harnessed_step = time_harnessed();
      bare_step = time_bare();
    }
    bare_first = !bare_first;
    bare_s.push_back(bare_step);
    overhead_s.push_back(harnessed_step - bare_step);
    excess_s.push_back(harnessed.last_recorded_s() - bare_step);
  }
  use_cpu_allocator(allocators.plain);
  report_overhead(state, bare_s, overhead_s, excess_s);
}

BENCHMARK(BM_Step_Bare)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Step_Harnessed)->Unit(benchmark::kMillisecond);
// Long enough for ~100 pairs: the overhead is a small difference between two noisy steps.
BENCHMARK(BM_Step_Paired)->Unit(benchmark::kMillisecond)->MinTime(5.0);

void BM_Ledger(benchmark::State& state) {
  use_cpu_allocator(cpu_allocators().counting);
  detail::TensorMemoryProbe memory(c10::Device(c10::kCPU));
  detail::ModeMemoryLedger ledger;
  for (auto _ : state) {
    ledger.begin(memory);
    ledger.end(memory);
  }
  benchmark::DoNotOptimize(ledger.peak_bytes());
}

void BM_TimerPair(benchmark::State& state) {
  for (auto _ : state) {
    const auto start = Clock::now();
    benchmark::DoNotOptimize(seconds_between(start, Clock::now()));
  }
}

// What the stopping rule computes after each round: every mode's interval over N rounds and the
// paired ratio against the reference (here for one AMP mode).
void BM_RoundSummary(benchmark::State& state) {
  std::mt19937 generator(0);
  std::normal_distribution<double> round_time(0.025, 0.0005);
  std::vector<double> reference(static_cast<std::size_t>(state.range(0)));
  std::vector<double> mode(reference.size());
  for (auto& time : reference) time = round_time(generator);
  for (auto& time : mode) time = 2.0 * round_time(generator);
  for (auto _ : state) {
    benchmark::DoNotOptimize(ampbench::reports::summarize_rounds(reference).relative_ci_half_width);
    benchmark::DoNotOptimize(ampbench::reports::summarize_rounds(mode).relative_ci_half_width);
    benchmark::DoNotOptimize(ampbench::reports::paired_round_ratio(reference, mode).value);
  }
}

void BM_AllocFree(benchmark::State& state) {
  auto* allocator = state.range(0) == 1 ? cpu_allocators().counting : cpu_allocators().plain;
  const auto bytes = static_cast<std::size_t>(state.range(1));
  for (auto _ : state) {
    auto data = allocator->allocate(bytes);
    benchmark::DoNotOptimize(data.get());
  }
}

BENCHMARK(BM_Ledger);
BENCHMARK(BM_TimerPair);
BENCHMARK(BM_RoundSummary)->Arg(kDefaults.min_rounds)->Arg(20)->Arg(100);
// 256 bytes, and 4 MiB: the step's largest tensor (conv1's output, 32x32x32x32 float32).
BENCHMARK(BM_AllocFree)->ArgNames({"counting", "bytes"})->ArgsProduct({{0, 1}, {256, 4 << 20}});

}  // namespace

int main(int argc, char** argv) {
  // This benchmark's two flags, taken out before Google Benchmark reads the rest.
  constexpr std::string_view kWorkloadFlag = "--workload=";
  constexpr std::string_view kModeFlag = "--mode=";
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string_view argument(argv[i]);
    if (argument.substr(0, kWorkloadFlag.size()) == kWorkloadFlag) {
      workload_name() = std::string(argument.substr(kWorkloadFlag.size()));
    } else if (argument.substr(0, kModeFlag.size()) == kModeFlag) {
      mode_name() = std::string(argument.substr(kModeFlag.size()));
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  const auto known = ampbench::workloads::known_workloads();
  if (std::none_of(known.begin(), known.end(), [](const auto& info) { return info.name == workload_name(); })) {
    std::cerr << "harness_overhead_benchmark: --workload: unknown workload '" << workload_name() << "'\n";
    return 2;
  }
  if (ampbench::bench::native_step_modes().count(mode_name()) == 0) {
    std::cerr << "harness_overhead_benchmark: --mode: '" << mode_name() << "' is not fp32, fp16 or bf16\n";
    return 2;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
