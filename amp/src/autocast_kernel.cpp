#include "autocast_kernel.h"

#include "op_count_recorder.h"
#include "thread_state.h"

#include <ATen/core/dispatch/Dispatcher.h>
#include <c10/core/impl/LocalDispatchKeySet.h>
#include <c10/util/Exception.h>

namespace ampbench::amp::detail {
namespace {

using Args = c10::ArrayRef<c10::IValue>;

// Calls fn on every tensor among the arguments, including those inside lists.
template <class Fn>
void for_each_tensor(Args args, Fn&& fn) {
  for (const auto& arg : args) {
    if (arg.isTensor()) {
      fn(arg.toTensor());
    } else if (arg.isList()) {
      for (const c10::IValue& element : arg.toListRef()) {
        if (element.isTensor()) {
          fn(element.toTensor());
        }
      }
    }
  }
}

c10::ScalarType first_floating_dtype(Args args) {
  c10::ScalarType found = c10::ScalarType::Undefined;
  for_each_tensor(args, [&](const at::Tensor& tensor) {
    if (found == c10::ScalarType::Undefined && tensor.defined() && tensor.is_floating_point()) {
      found = tensor.scalar_type();
    }
  });
  return found;
}

c10::ScalarType first_tensor_dtype(Args results) {
  for (const auto& result : results) {
    if (result.isTensor() && result.toTensor().defined()) {
      return result.toTensor().scalar_type();
    }
  }
  return c10::ScalarType::Undefined;
}

double result_elements(Args results) {
  for (const auto& result : results) {
    if (result.isTensor() && result.toTensor().defined()) {
      return static_cast<double>(result.toTensor().numel());
    }
  }
  return 0.0;
}

// A list with at least one tensor autocast would change gets a fresh copy (the caller may share
// the original list); others are left alone.
void cast_list(c10::IValue& arg, c10::ScalarType to, c10::DeviceType device_type) {
  bool changes = false;
  for (const c10::IValue& element : arg.toListRef()) {
    changes = changes || (element.isTensor() && is_autocast_eligible(element.toTensor(), device_type) &&
                          element.toTensor().scalar_type() != to);
  }
  if (!changes) {
    return;
  }
  c10::impl::GenericList copy = arg.toList().copy();
  for (std::size_t i = 0; i < copy.size(); ++i) {
    const c10::IValue element = copy.get(i);
    if (element.isTensor()) {
      copy.set(i, cast_for_autocast(element.toTensor(), to, device_type));
    }
  }
  arg = c10::IValue(std::move(copy));
}

void cast_args(c10::IValue* first, std::size_t count, c10::ScalarType to, c10::DeviceType device_type) {
  for (c10::IValue* arg = first; arg != first + count; ++arg) {
    if (arg->isTensor()) {
      const at::Tensor& tensor = arg->toTensor();
      if (is_autocast_eligible(tensor, device_type) && tensor.scalar_type() != to) {
        *arg = cast_for_autocast(tensor, to, device_type);
      }
    } else if (arg->isList()) {
      cast_list(*arg, to, device_type);
    }
  }
}

// The widest floating type among the eligible inputs, starting from the lower-precision type.
c10::ScalarType promoted_dtype(Args args, c10::ScalarType lower, c10::DeviceType device_type, const std::string& op) {
  c10::ScalarType widest = lower;
  for_each_tensor(args, [&](const at::Tensor& tensor) { widest = widen(widest, tensor, device_type, op); });
  return widest;
}

}  // namespace

c10::ScalarType widen(c10::ScalarType widest, const at::Tensor& tensor, c10::DeviceType device_type,
                      const std::string& op) {
  if (!is_autocast_eligible(tensor, device_type)) {
    return widest;
  }
  const auto dtype = tensor.scalar_type();
  if (dtype == at::kFloat || widest == at::kFloat) {
    return at::kFloat;
  }
  TORCH_CHECK(dtype == widest, "ampbench autocast: ", op, " has a ", c10::toString(dtype), " input inside a ",
              c10::toString(widest), " autocast scope; cannot promote between two 16-bit float types");
  return widest;
}

void refuse_banned(const std::string& op) {
  if (op == "binary_cross_entropy") {
    TORCH_CHECK(false,
                "ampbench autocast: binary_cross_entropy (torch::nn::BCELoss) is unsafe to autocast: a 16-bit "
                "sigmoid output saturates before the loss sees it. Use binary_cross_entropy_with_logits "
                "(torch::nn::BCEWithLogitsLoss) on the logits instead, or leave the autocast scope for the loss.");
  }
  TORCH_CHECK(false, "ampbench autocast: ", op,
              " is banned inside an autocast scope by its op policy; run it under Autocast::disabled() or change "
              "the policy with set_op_policy");
}

c10::DispatchKey autocast_dispatch_key(c10::DeviceType device_type) {
  return device_type == c10::DeviceType::CUDA ? c10::DispatchKey::AutocastCUDA : c10::DispatchKey::AutocastCPU;
}

AutocastKernel::AutocastKernel(OpEntry& entry, std::optional<std::size_t> dtype_argument)
    : entry_(entry), key_(autocast_dispatch_key(entry.device_type)), dtype_argument_(dtype_argument) {}

void AutocastKernel::operator()(const c10::OperatorHandle& op, c10::DispatchKeySet /*keys*/, torch::jit::Stack* stack) {
  const c10::impl::ExcludeDispatchKeyGuard no_autocast(key_);
  const c10::DeviceType device_type = entry_.device_type;
  const std::size_t arg_count = op.schema().arguments().size();
  c10::IValue* const first_arg = stack->data() + (stack->size() - arg_count);
  const Args args(first_arg, arg_count);
  const c10::ScalarType input_dtype = first_floating_dtype(args);

  switch (entry_.policy.load(std::memory_order_relaxed)) {
    case CastPolicy::kLowerPrecision:
      cast_args(first_arg, arg_count, lower_precision_dtype(device_type), device_type);
      break;
    case CastPolicy::kFp32:
      cast_args(first_arg, arg_count, at::kFloat, device_type);
      break;
    case CastPolicy::kFp32SetOptDtype:
      // LibTorch sets the dtype only when the first argument is eligible: setting it otherwise
      // could override the op's own type promotion.
      if (dtype_argument_ && arg_count > 0 && first_arg[0].isTensor() &&
          is_autocast_eligible(first_arg[0].toTensor(), device_type) && first_arg[*dtype_argument_].isNone()) {
        first_arg[*dtype_argument_] = c10::IValue(at::kFloat);
      }
      break;
    case CastPolicy::kPromote:
      cast_args(first_arg, arg_count,
                promoted_dtype(args, lower_precision_dtype(device_type), device_type, entry_.name), device_type);
      break;
    case CastPolicy::kPassthrough:
      break;
    case CastPolicy::kBanned:
      refuse_banned(entry_.name);
  }

  const FlopPlan flops = plan_flops(entry_.flop_formula, flop_operands(args));
  op.callBoxed(stack);
  const std::size_t result_count = op.schema().returns().size();
  const Args results(stack->data() + (stack->size() - result_count), result_count);
  const double total_flops =
      flops.fixed + (flops.per_output_element > 0.0 ? flops.per_output_element * result_elements(results) : 0.0);
  record_op_call(entry_.id, input_dtype, first_tensor_dtype(results), total_flops);
}

}  // namespace ampbench::amp::detail
