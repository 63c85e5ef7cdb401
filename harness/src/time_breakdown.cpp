#include "ampbench/harness/time_breakdown.h"

#include <ATen/record_function.h>
#include <torch/csrc/autograd/profiler_kineto.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

namespace ampbench::harness {
namespace {

constexpr const char* kPassScope = "ampbench::profiled steps";
constexpr const char* kScopePrefix = "ampbench::";
constexpr const char* kStepScope = "ampbench::step";

bool starts_with(const std::string& text, std::string_view prefix) { return text.rfind(prefix, 0) == 0; }

bool is_matrix_product(const std::string& name) {
  static const std::set<std::string> kOps = {"aten::mm",
                                             "aten::addmm",
                                             "aten::bmm",
                                             "aten::baddbmm",
                                             "aten::addbmm",
                                             "aten::matmul",
                                             "aten::linear",
                                             "aten::addmv",
                                             "aten::mv",
                                             "aten::dot",
                                             "aten::vdot",
                                             "aten::einsum",
                                             "aten::_addmm_activation"};
  return kOps.contains(name) || starts_with(name, "aten::conv") || starts_with(name, "aten::_conv") ||
         starts_with(name, "aten::mkldnn_conv") || starts_with(name, "aten::cudnn_conv") ||
         starts_with(name, "aten::_scaled_dot_product") || starts_with(name, "aten::scaled_dot_product") ||
         starts_with(name, "aten::_flash_attention") || starts_with(name, "aten::_efficient_attention") ||
         starts_with(name, "aten::_slow_conv") || starts_with(name, "aten::slow_conv") ||
         starts_with(name, "aten::mkldnn_rnn") || starts_with(name, "aten::_thnn_fused");
}

bool is_cast(const std::string& name) {
  return name == "aten::to" || name == "aten::_to_copy" || starts_with(name, "aten::_autocast_to");
}

// What autocast runs in float32 (the policy's kFp32 families): norms, softmax, losses, reductions.
bool is_kept_in_float32(const std::string& name) {
  for (const char* family : {"norm", "softmax", "loss", "cross_entropy", "aten::sum", "aten::mean", "aten::prod",
                             "aten::cumsum", "aten::cumprod", "aten::logsumexp", "aten::var", "aten::std"}) {
    if (name.find(family) != std::string::npos) return true;
  }
  return false;
}

bool is_bookkeeping(const std::string& name) {
  static const std::set<std::string> kOps = {"aten::as_strided",
                                             "aten::view",
                                             "aten::_unsafe_view",
                                             "aten::t",
                                             "aten::transpose",
                                             "aten::expand",
                                             "aten::empty",
                                             "aten::empty_like",
                                             "aten::empty_strided",
                                             "aten::zeros",
                                             "aten::zeros_like",
                                             "aten::detach",
                                             "aten::detach_",
                                             "detach",
                                             "detach_",
                                             "aten::reshape",
                                             "aten::_reshape_alias",
                                             "aten::unsqueeze",
                                             "aten::squeeze",
                                             "aten::permute",
                                             "aten::contiguous",
                                             "aten::resize_",
                                             "aten::select",
                                             "aten::slice",
                                             "aten::alias",
                                             "aten::lift_fresh",
                                             "aten::resolve_conj",
                                             "aten::resolve_neg",
                                             "aten::numpy_T",
                                             "aten::narrow"};
  return kOps.contains(name) || !starts_with(name, "aten::");  // the autograd engine's own records, node names
}

// The phases after backward, whose ops are the optimizer's or the GradScaler's whatever they are.
bool is_optimizer_phase(const std::string& name) {
  return name == "ampbench::optimizer step" || name == "ampbench::unscale" || name == "ampbench::scaler update";
}

std::string phase_category(const std::string& phase, const std::vector<const OpInterval*>& chain) {
  if (phase == "ampbench::unscale" || phase == "ampbench::scaler update") return "GradScaler";
  // scaler.step() waits for the inf check (a host sync) and then steps the optimizer.
  for (const auto* op : chain) {
    if (op->name == "aten::item" || op->name == "aten::_local_scalar_dense" || starts_with(op->name, "aten::_amp_"))
      return "GradScaler";
  }
  return "optimizer";
}

// Kineto logs its start and stop (and, on a machine without a GPU, a failed device count) to
// std::cerr, which in a worker is the progress channel to the parent and reaches the user's
// terminal: those lines are kept off it while the profiler runs.
class QuietStderr {
 public:
  QuietStderr() : saved_(std::cerr.rdbuf(sink_.rdbuf())) {}
  ~QuietStderr() { std::cerr.rdbuf(saved_); }
  QuietStderr(const QuietStderr&) = delete;
  QuietStderr& operator=(const QuietStderr&) = delete;

 private:
  std::ostringstream sink_;
  std::streambuf* saved_;
};

}  // namespace

std::string op_category(const std::vector<const OpInterval*>& op_and_enclosing) {
  for (const auto* op : op_and_enclosing) {
    if (is_optimizer_phase(op->name)) return phase_category(op->name, op_and_enclosing);
  }
  for (const auto* op : op_and_enclosing) {
    if (is_cast(op->name)) return "casts";
    if (is_matrix_product(op->name)) return "matmul/conv " + (op->dtype.empty() ? std::string("float32") : op->dtype);
    if (is_kept_in_float32(op->name)) return "kept in float32";
  }
  const auto& own = op_and_enclosing.front()->name;
  return is_bookkeeping(own) || starts_with(own, kScopePrefix) ? "rest (autograd, views, host)" : "elementwise";
}

reports::TimeBreakdown categorise(std::vector<OpInterval> ops, std::int64_t steps, double wall_s, std::string method) {
  std::sort(ops.begin(), ops.end(), [](const OpInterval& a, const OpInterval& b) {
    return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.end_ns > b.end_ns;  // enclosing first
  });
  // Nesting by time: each op's parent is the innermost earlier op that has not ended.
  std::vector<int> parent(ops.size(), -1);
  std::vector<double> child_ns(ops.size(), 0.0);
  std::vector<int> open;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    while (!open.empty() && ops[static_cast<std::size_t>(open.back())].end_ns <= ops[i].start_ns) open.pop_back();
    if (!open.empty()) {
      parent[i] = open.back();
      child_ns[static_cast<std::size_t>(open.back())] += static_cast<double>(ops[i].end_ns - ops[i].start_ns);
    }
    open.push_back(static_cast<int>(i));
  }
  // With step scopes (TrainingStep records one), only what ran inside a step counts, and the
  // steps' own durations are the step time; the scope's own time is host code in the step between
  // phases: unattributed.
  const bool has_steps =
      std::any_of(ops.begin(), ops.end(), [](const OpInterval& op) { return op.name == kStepScope; });
  std::map<std::string, double> seconds;
  double step_ns = 0.0;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    std::vector<const OpInterval*> chain;
    for (int at = static_cast<int>(i); at >= 0; at = parent[static_cast<std::size_t>(at)])
      chain.push_back(&ops[static_cast<std::size_t>(at)]);
    const bool in_step =
        std::any_of(chain.begin(), chain.end(), [](const OpInterval* op) { return op->name == kStepScope; });
    if (has_steps && !in_step) continue;
    if (ops[i].name == kStepScope) {
      step_ns += static_cast<double>(ops[i].end_ns - ops[i].start_ns);
      continue;
    }
    const double self_ns = std::max(0.0, static_cast<double>(ops[i].end_ns - ops[i].start_ns) - child_ns[i]);
    seconds[op_category(chain)] += self_ns * 1e-9;
  }
  reports::TimeBreakdown breakdown;
  breakdown.steps = steps;
  const double per_step = 1.0 / static_cast<double>(steps);
  breakdown.step_time_s = (has_steps ? step_ns * 1e-9 : wall_s) * per_step;
  double categorised = 0.0;
  for (const auto& [name, total] : seconds) {
    breakdown.categories.push_back({name, total * per_step});
    categorised += total * per_step;
  }
  std::sort(breakdown.categories.begin(), breakdown.categories.end(),
            [](const auto& a, const auto& b) { return a.seconds_per_step > b.seconds_per_step; });
  // Whatever the ops do not cover: the scopes' own time and the rest of the wall time (the wait
  // for the device at the end, the profiler's own start-up inside the pass).
  breakdown.unattributed_s = std::max(0.0, breakdown.step_time_s - categorised);
  breakdown.method = std::move(method);
  return breakdown;
}

reports::TimeBreakdown profile_time_breakdown(const std::function<void()>& run_pass, std::int64_t steps) {
  using namespace torch::profiler::impl;
  const QuietStderr quiet;
  const ProfilerConfig config(ProfilerState::KINETO, /*report_input_shapes=*/true);
  const std::set<ActivityType> activities{ActivityType::CPU};
  torch::autograd::profiler::prepareProfiler(config, activities);
  torch::autograd::profiler::enableProfiler(config, activities);
  const auto start = std::chrono::steady_clock::now();
  {
    RECORD_USER_SCOPE(kPassScope);
    run_pass();
  }
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const auto result = torch::autograd::profiler::disableProfiler();
  // The training thread is the one that recorded the pass's scope.
  std::uint64_t thread = 0;
  for (const auto& event : result->events()) {
    if (event.name() == kPassScope) thread = event.startThreadId();
  }
  std::vector<OpInterval> ops;
  for (const auto& event : result->events()) {
    if (event.startThreadId() != thread || event.deviceType() != c10::DeviceType::CPU || event.name() == kPassScope)
      continue;
    const auto dtypes = event.hasTypes() ? event.dtypes() : c10::ArrayRef<std::string>{};
    const auto first_float = std::find_if(dtypes.begin(), dtypes.end(), [](const std::string& dtype) {
      return dtype == "float" || dtype == "c10::BFloat16" || dtype == "c10::Half" || dtype == "double";
    });
    std::string dtype;
    if (first_float != dtypes.end()) {
      dtype = *first_float == "float"           ? "float32"
              : *first_float == "c10::BFloat16" ? "bfloat16"
              : *first_float == "c10::Half"     ? "float16"
                                                : "float64";
    }
    ops.push_back({event.name(), dtype, event.startNs(), event.endNs()});
  }
  return categorise(std::move(ops), steps, wall_s,
                    "LibTorch profiler (Kineto), self time of the CPU ops of the "
                    "training thread, " +
                        std::to_string(steps) + " profiled steps");
}

}  // namespace ampbench::harness
