#include "ampbench/harness/time_breakdown.h"

#include <ATen/record_function.h>
#include <torch/csrc/autograd/profiler_kineto.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include "quiet_stderr.h"

namespace ampbench::harness {
namespace {

constexpr const char* kPassScope = "ampbench::profiled steps";
constexpr const char* kScopePrefix = "ampbench::";
constexpr const char* kStepScope = "ampbench::step";
constexpr const char* kRestCategory = "rest (autograd, views, host)";

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
  return is_bookkeeping(own) || starts_with(own, kScopePrefix) ? kRestCategory : "elementwise";
}

bool unaligned_for_tensor_cores(const OpInterval& op) {
  if (!is_matrix_product(op.name) || (op.dtype != "float16" && op.dtype != "bfloat16")) return false;
  const auto multiple_of_8 = [](std::int64_t dimension) { return dimension % 8 == 0; };
  const bool convolution = op.name.find("conv") != std::string::npos;
  if (convolution) {
    // The weight, [out channels, in channels, kernel...]: the channels are the GEMM's dimensions.
    if (op.shapes.size() < 2 || op.shapes[1].size() < 2) return false;
    return !multiple_of_8(op.shapes[1][0]) || !multiple_of_8(op.shapes[1][1]);
  }
  for (const auto& shape : op.shapes) {
    if (shape.size() < 2) continue;
    if (!multiple_of_8(shape[shape.size() - 1]) || !multiple_of_8(shape[shape.size() - 2])) return true;
  }
  return false;
}

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

// The profiler's flat list of CPU ops, nested again by time: each op's parent is the innermost
// earlier op that has not ended, and each op's children's total time is what its self time lacks.
class OpNesting {
 public:
  explicit OpNesting(std::vector<OpInterval> ops) : ops_(std::move(ops)) {
    std::sort(ops_.begin(), ops_.end(), [](const OpInterval& a, const OpInterval& b) {
      return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.end_ns > b.end_ns;  // enclosing first
    });
    parent_.assign(ops_.size(), -1);
    child_ns_.assign(ops_.size(), 0.0);
    std::vector<int> open;
    for (std::size_t i = 0; i < ops_.size(); ++i) {
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
    for (const auto* op : chain) {
      if (!is_matrix_product(op->name)) continue;
      if (unaligned_for_tensor_cores(*op)) note_unaligned(*op, ns);
      return;
    }
  }
  void add_unattributable(double ns) { seconds_[kRestCategory] += ns * 1e-9; }

  // Per step, the categories largest first; what they do not cover of step_time_s is unattributed.
  [[nodiscard]] reports::TimeBreakdown per_step(std::int64_t steps, double step_time_s, std::string method) && {
    reports::TimeBreakdown breakdown;
    breakdown.steps = steps;
    const double per_step = 1.0 / static_cast<double>(steps);
    breakdown.step_time_s = step_time_s;
    breakdown.unaligned_matmul_s = unaligned_ns_ * 1e-9 * per_step;
    breakdown.unaligned_matmul_ops = std::move(unaligned_ops_);
    double categorised = 0.0;
    for (const auto& [name, total] : seconds_) {
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

 private:
  static constexpr std::size_t kUnalignedExamples = 3;

  void note_unaligned(const OpInterval& op, double ns) {
    unaligned_ns_ += ns;
    const auto text = shapes_text(op);
    if (unaligned_ops_.size() < kUnalignedExamples &&
        std::find(unaligned_ops_.begin(), unaligned_ops_.end(), text) == unaligned_ops_.end())
      unaligned_ops_.push_back(text);
  }

  std::map<std::string, double> seconds_;
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

reports::TimeBreakdown profile_time_breakdown(const std::function<void()>& run_pass, std::int64_t steps,
                                              bool cuda_kernels) {
  using namespace torch::profiler::impl;
  // Kineto logs its start and stop (and, without a GPU, a failed device count) to std::cerr, from
  // its own threads too: kept off the worker's progress channel while the profiler runs.
  const detail::QuietStderr quiet;
  const ProfilerConfig config(ProfilerState::KINETO, /*report_input_shapes=*/true);
  std::set<ActivityType> activities{ActivityType::CPU};
  if (cuda_kernels) activities.insert(ActivityType::CUDA);
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
    if (event.deviceType() == c10::DeviceType::CUDA) {
      // A kernel (or copy) on the device: linked to the CPU op that launched it, whose
      // correlation id is its linked one (how torch.autograd.profiler pairs them too).
      ops.push_back({event.name(), "", event.startNs(), event.endNs(), {}, true, event.linkedCorrelationId()});
      continue;
    }
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
    std::vector<std::vector<std::int64_t>> shapes;
    if (event.hasShapes()) shapes.assign(event.shapes().begin(), event.shapes().end());
    ops.push_back(
        {event.name(), dtype, event.startNs(), event.endNs(), std::move(shapes), false, event.correlationId()});
  }
  const std::string what = cuda_kernels ? "CUDA kernel time by the op of the training thread that launched it"
                                        : "self time of the CPU ops of the training thread";
  return categorise(std::move(ops), steps, wall_s,
                    "LibTorch profiler (Kineto), " + what + ", " + std::to_string(steps) + " profiled steps");
}

}  // namespace ampbench::harness
