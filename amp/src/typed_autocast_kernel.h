// The unboxed twin of AutocastKernel for the hot ops (matmuls, linear, convolutions): the same
// policy, casts and counting, with the op's own C++ signature, so the dispatcher calls it without
// boxing the arguments onto a stack and unboxing them again. Private to ampbench::amp.
#pragma once

#include "autocast_kernel.h"
#include "flops.h"
#include "op_count_recorder.h"
#include "op_registry.h"
#include "thread_state.h"

#include <c10/core/impl/LocalDispatchKeySet.h>

#include <optional>
#include <type_traits>

namespace ampbench::amp::detail {

inline at::Tensor cast_arg(const at::Tensor& t, c10::ScalarType to, c10::DeviceType device_type) {
  return cast_for_autocast(t, to, device_type);
}
inline std::optional<at::Tensor> cast_arg(const std::optional<at::Tensor>& t, c10::ScalarType to,
                                          c10::DeviceType device_type) {
  return t ? std::optional<at::Tensor>(cast_for_autocast(*t, to, device_type)) : std::nullopt;
}
template <class T>
T&& cast_arg(T&& arg, c10::ScalarType /*to*/, c10::DeviceType /*device_type*/) {
  return std::forward<T>(arg);
}

// The defined tensor an argument is, if it is one.
template <class T>
const at::Tensor* tensor_of(const T& arg) {
  if constexpr (std::is_same_v<T, at::Tensor>) {
    return arg.defined() ? &arg : nullptr;
  } else if constexpr (std::is_same_v<T, std::optional<at::Tensor>>) {
    return arg && arg->defined() ? &*arg : nullptr;
  } else {
    return nullptr;
  }
}

// Op: an at::_ops struct (at::_ops::addmm, ...), whose `schema` is the op's C++ signature.
template <class Op, class Signature = typename Op::schema>
class TypedAutocastKernel;

template <class Op, class... Args>
class TypedAutocastKernel<Op, at::Tensor(Args...)> {
 public:
  explicit TypedAutocastKernel(OpEntry& entry) : entry_(&entry) {}

  at::Tensor operator()(Args... args) const {
    const c10::impl::ExcludeDispatchKeyGuard no_autocast(autocast_dispatch_key(entry_->device_type));
    const c10::DeviceType device_type = entry_->device_type;
    const std::array<const at::Tensor*, sizeof...(Args)> tensors{tensor_of(args)...};
    c10::ScalarType input_dtype = c10::ScalarType::Undefined;
    for (const at::Tensor* t : tensors) {
      if (t != nullptr && t->is_floating_point() && input_dtype == c10::ScalarType::Undefined) {
        input_dtype = t->scalar_type();
      }
    }
    FlopOperands operands;
    for (std::size_t i = 0; i < operands.tensors.size() && i < tensors.size(); ++i) {
      operands.tensors[i] = tensors[i];
    }
    const FlopPlan flops = plan_flops(entry_->flop_formula, operands);

    const std::optional<c10::ScalarType> target = cast_target(tensors);
    at::Tensor result = target ? Op::call(cast_arg(args, *target, device_type)...) : Op::call(args...);
    record_op_call(entry_->id, input_dtype, result.scalar_type(),
                   flops.fixed + flops.per_output_element * static_cast<double>(result.numel()));
    return result;
  }

 private:
  template <std::size_t N>
  std::optional<c10::ScalarType> cast_target(const std::array<const at::Tensor*, N>& tensors) const {
    switch (entry_->policy.load(std::memory_order_relaxed)) {
      case CastPolicy::kLowerPrecision:
        return lower_precision_dtype(entry_->device_type);
      case CastPolicy::kFp32:
        return at::kFloat;
      case CastPolicy::kPromote: {
        c10::ScalarType widest = lower_precision_dtype(entry_->device_type);
        for (const at::Tensor* t : tensors) {
          widest = t == nullptr ? widest : widen(widest, *t, entry_->device_type, entry_->name);
        }
        return widest;
      }
      case CastPolicy::kBanned:
        refuse_banned(entry_->name);
      case CastPolicy::kFp32SetOptDtype:  // the hot ops have no dtype argument (set_op_policy checks)
      case CastPolicy::kPassthrough:
        break;
    }
    return std::nullopt;
  }

  OpEntry* entry_;
};

}  // namespace ampbench::amp::detail
