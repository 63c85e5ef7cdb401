// categorise (time_breakdown.h): the profiler's ops nested again by time and their time attributed
// to the categories of op_taxonomy.cpp, per profiled step.
#include "profile/time_breakdown.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>

#include "measure/step_phases.h"
#include "profile/op_taxonomy.h"

namespace ampbench::harness {

using detail::kStepScope;

namespace {

std::string shapes_text(const OpInterval& op) {
  std::string out = op.name;
  for (const auto& shape : op.shapes) {
    if (shape.empty()) continue;
    out += " [";
    for (std::size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
    out += "]";
  }
  return out;
}

double duration_ns(const OpInterval& op) { return static_cast<double>(op.end_ns - op.start_ns); }

// The profiler's flat list of CPU ops, nested again by time within each thread: each op's parent
// is the innermost earlier op of its thread that has not ended, and each op's children's total time
// is what its self time lacks.
class OpNesting {
 public:
  explicit OpNesting(std::vector<OpInterval> ops) : ops_(std::move(ops)) {
    std::sort(ops_.begin(), ops_.end(), [](const OpInterval& a, const OpInterval& b) {
      if (a.thread != b.thread) return a.thread < b.thread;
      return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.end_ns > b.end_ns;  // enclosing first
    });
    parent_.assign(ops_.size(), -1);
    child_ns_.assign(ops_.size(), 0.0);
    std::vector<int> open;
    for (std::size_t i = 0; i < ops_.size(); ++i) {
      if (i > 0 && ops_[i].thread != ops_[i - 1].thread) open.clear();
      while (!open.empty() && ops_[static_cast<std::size_t>(open.back())].end_ns <= ops_[i].start_ns) open.pop_back();
      if (!open.empty()) {
        parent_[i] = open.back();
        child_ns_[static_cast<std::size_t>(open.back())] += duration_ns(ops_[i]);
      }
      open.push_back(static_cast<int>(i));
    }
  }

  [[nodiscard]] std::size_t size() const { return ops_.size(); }
  [[nodiscard]] const OpInterval& op(std::size_t i) const { return ops_[i]; }
  [[nodiscard]] double self_ns(std::size_t i) const { return std::max(0.0, duration_ns(ops_[i]) - child_ns_[i]); }
  // The op and every op enclosing it, innermost first.
  [[nodiscard]] std::vector<const OpInterval*> chain_of(std::size_t i) const {
    std::vector<const OpInterval*> chain;
    for (int at = static_cast<int>(i); at >= 0; at = parent_[static_cast<std::size_t>(at)])
      chain.push_back(&ops_[static_cast<std::size_t>(at)]);
    return chain;
  }

 private:
  std::vector<OpInterval> ops_;
  std::vector<int> parent_;
  std::vector<double> child_ns_;
};

// Time attributed to categories, and the share of it in matrix products tensor cores cannot take.
class Attribution {
 public:
  void add(const std::vector<const OpInterval*>& chain, double ns) {
    seconds_[op_category(chain)] += ns * 1e-9;
    op_seconds_[{chain.front()->name, chain.front()->dtype}] += ns * 1e-9;
    for (const auto* op : chain) {
      if (!is_matrix_product(op->name)) continue;
      if (unaligned_for_tensor_cores(*op)) note_unaligned(*op, ns);
      return;
    }
  }
  void add_unattributable(double ns) { seconds_[{reports::OpFamily::kRest, {}}] += ns * 1e-9; }

  // Per step, the categories largest first; what they do not cover of step_time_s is unattributed.
  [[nodiscard]] reports::TimeBreakdown per_step(std::int64_t steps, double step_time_s, std::string method) && {
    reports::TimeBreakdown breakdown;
    breakdown.steps = steps;
    const double per_step = 1.0 / static_cast<double>(steps);
    breakdown.step_time_s = step_time_s;
    breakdown.unaligned_matmul_s = unaligned_ns_ * 1e-9 * per_step;
    breakdown.unaligned_matmul_ops = std::move(unaligned_ops_);
    double categorised = 0.0;
    for (const auto& [category, total] : seconds_) {
      breakdown.categories.push_back({category, total * per_step});
      categorised += total * per_step;
    }
    // Largest first; equal times keep the maps' order (by category, by op name and dtype), so the
    // same profile always lists the same five ops. A few hundred ops once per cell, off the timed
    // path: a stable sort of all of them costs nothing that a partial sort would save.
    const auto largest_first = [](const auto& a, const auto& b) { return a.seconds_per_step > b.seconds_per_step; };
    std::stable_sort(breakdown.categories.begin(), breakdown.categories.end(), largest_first);
    for (const auto& [op, total] : op_seconds_) breakdown.top_ops.push_back({op.first, op.second, total * per_step});
    std::stable_sort(breakdown.top_ops.begin(), breakdown.top_ops.end(), largest_first);
    if (breakdown.top_ops.size() > reports::TimeBreakdown::kTopOps)
      breakdown.top_ops.resize(reports::TimeBreakdown::kTopOps);
    // Whatever the ops do not cover: the scopes' own time and the rest of the wall time (the wait
    // for the device at the end, the profiler's own start-up inside the pass).
    breakdown.unattributed_s = std::max(0.0, breakdown.step_time_s - categorised);
    breakdown.method = std::move(method);
    return breakdown;
  }

 private:
  static constexpr std::size_t kUnalignedExamples = 3;

  void note_unaligned(const OpInterval& op, double ns) {
    unaligned_ns_ += ns;
    const auto text = shapes_text(op);
    if (unaligned_ops_.size() < kUnalignedExamples &&
        std::find(unaligned_ops_.begin(), unaligned_ops_.end(), text) == unaligned_ops_.end())
      unaligned_ops_.push_back(text);
  }

  std::map<reports::OpCategory, double> seconds_;
  std::map<std::pair<std::string, std::string>, double> op_seconds_;  // by op name and input dtype
  double unaligned_ns_ = 0.0;
  std::vector<std::string> unaligned_ops_;
};

// On a GPU the device's time is the step's work: each kernel counts for the op that launched it.
void attribute_kernels(const std::vector<OpInterval>& kernels, const OpNesting& nesting, Attribution& attribution) {
  std::map<std::uint64_t, std::size_t> launcher;  // a kernel's correlation -> the CPU op that launched it
  for (std::size_t i = 0; i < nesting.size(); ++i) {
    if (nesting.op(i).correlation != 0) launcher[nesting.op(i).correlation] = i;
  }
  for (const auto& kernel : kernels) {
    const auto found = launcher.find(kernel.correlation);
    if (found == launcher.end()) {
      attribution.add_unattributable(duration_ns(kernel));
    } else {
      attribution.add(nesting.chain_of(found->second), duration_ns(kernel));
    }
  }
}

// On a CPU each op's self time counts. With step scopes (TrainingStep records one), only what ran
// inside a step counts, and the steps' own durations are the step time (returned, 0 without
// scopes); a step scope's own time is host code in the step between phases: unattributed.
double attribute_host_ops(const OpNesting& nesting, bool has_steps, Attribution& attribution) {
  double step_ns = 0.0;
  for (std::size_t i = 0; i < nesting.size(); ++i) {
    const auto chain = nesting.chain_of(i);
    const bool in_step =
        std::any_of(chain.begin(), chain.end(), [](const OpInterval* op) { return op->name == kStepScope; });
    if (has_steps && !in_step) continue;
    if (nesting.op(i).name == kStepScope) {
      step_ns += duration_ns(nesting.op(i));
      continue;
    }
    attribution.add(chain, nesting.self_ns(i));
  }
  return step_ns;
}

}  // namespace

reports::TimeBreakdown categorise(std::vector<OpInterval> ops, std::int64_t steps, double wall_s, std::string method) {
  std::vector<OpInterval> kernels;
  std::erase_if(ops, [&kernels](OpInterval& op) {
    if (op.kernel) kernels.push_back(std::move(op));
    return op.kernel;
  });
  const bool has_steps =
      std::any_of(ops.begin(), ops.end(), [](const OpInterval& op) { return op.name == kStepScope; });
  const OpNesting nesting(std::move(ops));
  Attribution attribution;
  double step_time_s = wall_s;
  if (!kernels.empty()) {
    attribute_kernels(kernels, nesting, attribution);
  } else {
    const double step_ns = attribute_host_ops(nesting, has_steps, attribution);
    if (has_steps) step_time_s = step_ns * 1e-9;
  }
  return std::move(attribution).per_step(steps, step_time_s / static_cast<double>(steps), std::move(method));
}

}  // namespace ampbench::harness
