// One mode of one built-in workload trained by the plainest LibTorch loop, with nothing of
// ampbench's timing or amp in it: bench/validity.py sets ampbench's step times and speedups
// against it, as an independent measurement of the same thing that, unlike PyTorch's Python loop,
// pays no interpreter cost per step.
//
// The loop is the one PyTorch's AMP recipe writes, in C++ (native_training_step.h: LibTorch's
// native autocast, not ampbench's kernels, and ATen's own loss-scaling ops). Each step is timed with a
// steady clock, in rounds of --round-steps as ampbench's blocks: before each round, outside its
// timing, the machine probe's step (ampbench's, so its readings compare with the runs' rounds) is
// timed 3 times and the median kept, then one untimed step meets what the probe left behind (a
// SimpleNet bf16 step right after the probe read 1.38x). The model, its data and its optimizer
// are the workload's (the registry's factory), so only the loop differs.
//
// Usage: bare_loop_cell WORKLOAD MODE PRESET --steps N --warmup N --threads N --round-steps N
// Prints one JSON object: {"step_s": [...], "probe_s": [...]}, one of each per timed step (a
// round's probe reading for each of its steps).
#include <ATen/Parallel.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "ampbench/workloads/preset.h"
#include "ampbench/workloads/registry.h"
#include "measure/machine_probe.h"
#include "native_training_step.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
namespace workloads = ampbench::workloads;

constexpr std::int64_t kBatches = 16;  // cycled, as ampbench's timed steps cycle theirs
constexpr int kProbeCalls = 3;

struct Cell {
  std::string workload;
  std::string mode;
  std::string preset;
  int steps = 0;
  int warmup = 0;
  int threads = 0;
  int round_steps = 0;
};

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

nlohmann::json run(const Cell& cell) {
  at::set_num_threads(cell.threads);
  workloads::WorkloadOptions options;
  options.preset = workloads::parse_preset(cell.preset);
  auto workload = workloads::make_workload(cell.workload, options);
  auto optimizer = workload->make_optimizer();
  std::vector<workloads::Batch> batches;
  for (std::int64_t i = 0; i < kBatches; ++i) batches.push_back(workload->make_batch(i));
  ampbench::bench::NativeTrainingStep step(*workload, *optimizer, ampbench::bench::native_step_modes().at(cell.mode));

  ampbench::harness::detail::MachineProbe probe(torch::kCPU);
  std::vector<double> step_s;
  std::vector<double> probe_s;
  double reading = 0.0;  // the current round's probe
  for (int i = 0; i < cell.warmup + cell.steps; ++i) {
    const auto& batch = batches[static_cast<std::size_t>(i % kBatches)];
    if (i >= cell.warmup && (i - cell.warmup) % cell.round_steps == 0) {
      std::vector<double> calls;
      for (int call = 0; call < kProbeCalls; ++call) {
        const auto start = Clock::now();
        probe.run();
        calls.push_back(seconds_since(start));
      }
      std::nth_element(calls.begin(), calls.begin() + kProbeCalls / 2, calls.end());
      reading = calls[kProbeCalls / 2];
      (void)step.run(batch);  // untimed: the step after the probe
    }
    const auto start = Clock::now();
    (void)step.run(batch);
    if (i >= cell.warmup) {
      step_s.push_back(seconds_since(start));
      probe_s.push_back(reading);
    }
  }
  return {{"step_s", step_s}, {"probe_s", probe_s}};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"One mode of one workload in a plain LibTorch training loop (native autocast), timed per step"};
  Cell cell;
  app.add_option("workload", cell.workload, "a registered workload")->required();
  app.add_option("mode", cell.mode, "fp32, fp16 or bf16")
      ->required()
      ->check(CLI::IsMember(ampbench::bench::native_step_modes()));
  app.add_option("preset", cell.preset, "seed, default or large")->required();
  app.add_option("--steps", cell.steps, "timed steps")->required()->check(CLI::Range(1, 1000000));
  app.add_option("--warmup", cell.warmup, "untimed steps first")->required()->check(CLI::Range(0, 100000));
  app.add_option("--threads", cell.threads, "intra-op threads")->required()->check(CLI::Range(1, 1024));
  app.add_option("--round-steps", cell.round_steps, "timed steps per round (a probe and an untimed step before each)")
      ->required()
      ->check(CLI::Range(1, 1000000));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    return app.exit(error) == 0 ? 0 : 2;  // --help is 0; a bad argument 2, as in ampbench
  }
  try {
    std::cout << run(cell).dump() << '\n';
  } catch (const std::invalid_argument& error) {  // an unknown workload or preset
    std::cerr << "bare_loop_cell: " << error.what() << '\n';
    return 2;
  }
  return 0;
}
