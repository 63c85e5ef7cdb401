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

// One recorded op (or scope) of one thread: its name, the dtype of its first tensor input (empty
// when none was recorded) and when it ran.
struct OpInterval {
  std::string name;
  std::string dtype;
  std::uint64_t start_ns = 0;
  std::uint64_t end_ns = 0;
};

// The category an op's self time goes to, given the op and its enclosing ops (innermost first).
[[nodiscard]] std::string op_category(const std::vector<const OpInterval*>& op_and_enclosing);

// Pure: the breakdown of `steps` steps that took wall_s in all, from the intervals of the
// training thread (nested by time; any order).
[[nodiscard]] reports::TimeBreakdown categorise(std::vector<OpInterval> ops, std::int64_t steps, double wall_s,
                                                std::string method);

// Runs `run_pass` (the profiled steps, finished on the device) under LibTorch's profiler and
// categorises what it recorded.
[[nodiscard]] reports::TimeBreakdown profile_time_breakdown(const std::function<void()>& run_pass, std::int64_t steps);

}  // namespace ampbench::harness
