// Where a cell's step time goes: its profiled steps (the ones the tensor-core profiler replays,
// after the timed steps, never the timed ones) run once more under LibTorch's profiler, and the
// self time of every op on the training thread is put in a category by the op and the ops that
// enclose it (the innermost that has a category decides: a cast inside aten::linear is a cast, the
// copy inside aten::addmm is the matrix product's). The categories and the unattributed rest
// (time inside ampbench's own step scopes but in no op) make the profiled step's wall time.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ampbench/reports/report.h"

namespace ampbench::harness {

// One recorded op (or scope) of a CPU thread: its name, the dtype of its first floating-point
// input (empty when none was recorded), its inputs' shapes, when it ran, its correlation id and
// the thread that recorded it (ops nest within their own thread only); or, with `kernel`, a GPU
// kernel (or copy, or memset) whose `correlation` is that of the CPU op that launched it.
struct OpInterval {
  std::string name;
  std::string dtype;
  std::uint64_t start_ns = 0;
  std::uint64_t end_ns = 0;
  std::vector<std::vector<std::int64_t>> shapes;
  bool kernel = false;
  std::uint64_t correlation = 0;
  std::uint64_t thread = 0;
};

// A low-precision matrix product or convolution whose dimensions tensor cores cannot use: a
// GEMM input's last two dimensions, or a convolution weight's output and input channels, not all
// multiples of 8. "aten::addmm [64, 100] [100, 10]" for the first of them.
[[nodiscard]] bool unaligned_for_tensor_cores(const OpInterval& op);

// The category an op's self time goes to, given the op and its enclosing ops (innermost first).
[[nodiscard]] reports::OpCategory op_category(const std::vector<const OpInterval*>& op_and_enclosing);

// Pure: the breakdown of `steps` steps that took wall_s in all, from the recorded intervals
// (nested by time within each thread; any order). Without kernels (the training thread's ops): each
// CPU op's self time by category, within the ampbench::step scopes when there are any. With kernels
// (a GPU run, every thread's ops: on CUDA the autograd engine's own thread launches the backward's
// kernels): each kernel's time by the category of the op that launched it, over the wall time per
// step (the unattributed rest is time the device did not compute for the step).
[[nodiscard]] reports::TimeBreakdown categorise(std::vector<OpInterval> ops, std::int64_t steps, double wall_s,
                                                std::string method);

// Runs `run_pass` (the profiled steps, finished on the device) under LibTorch's profiler (with
// CUDA kernel records when `cuda_kernels`) and categorises what it recorded.
[[nodiscard]] reports::TimeBreakdown profile_time_breakdown(const std::function<void()>& run_pass, std::int64_t steps,
                                                            bool cuda_kernels);

}  // namespace ampbench::harness
