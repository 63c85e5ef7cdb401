// The op taxonomy of the time breakdown (time_breakdown.h): which category an op's time belongs
// to, by its name and the ops that enclose it, and which matrix products tensor cores cannot take.
#include "profile/op_taxonomy.h"

#include <set>
#include <string_view>

#include "measure/step_phases.h"

namespace ampbench::harness {
namespace {

bool starts_with(const std::string& text, std::string_view prefix) { return text.rfind(prefix, 0) == 0; }

using detail::phase_scope;
using detail::StepPhase;

bool is_scaler_phase(const std::string& name) {
  static const std::string unscale = phase_scope(StepPhase::kUnscale);
  static const std::string update = phase_scope(StepPhase::kScalerUpdate);
  return name == unscale || name == update;
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
  static const std::string optimizer_step = phase_scope(StepPhase::kOptimizerStep);
  return name == optimizer_step || is_scaler_phase(name);
}

reports::OpFamily phase_family(const std::string& phase, const std::vector<const OpInterval*>& chain) {
  if (is_scaler_phase(phase)) return reports::OpFamily::kGradScaler;
  // scaler.step() waits for the inf check (a host sync) and then steps the optimizer.
  for (const auto* op : chain) {
    if (op->name == "aten::item" || op->name == "aten::_local_scalar_dense" || starts_with(op->name, "aten::_amp_"))
      return reports::OpFamily::kGradScaler;
  }
  return reports::OpFamily::kOptimizer;
}

}  // namespace

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

reports::OpCategory op_category(const std::vector<const OpInterval*>& op_and_enclosing) {
  using reports::OpFamily;
  for (const auto* op : op_and_enclosing) {
    if (is_optimizer_phase(op->name)) return {phase_family(op->name, op_and_enclosing), {}};
  }
  for (const auto* op : op_and_enclosing) {
    if (is_cast(op->name)) return {OpFamily::kCasts, {}};
    if (is_matrix_product(op->name)) return reports::matmul_category(op->dtype);
    if (is_kept_in_float32(op->name)) return {OpFamily::kKeptInFloat32, {}};
  }
  const auto& own = op_and_enclosing.front()->name;
  const bool rest = is_bookkeeping(own) || starts_with(own, detail::kScopePrefix);
  return {rest ? OpFamily::kRest : OpFamily::kElementwise, {}};
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

}  // namespace ampbench::harness
