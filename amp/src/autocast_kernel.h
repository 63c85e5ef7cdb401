// The boxed kernel ampbench registers on an autocast dispatch key for one op entry: it casts the
// arguments on the stack per the entry's current policy, calls the op below the autocast key and
// counts the call. Private to ampbench::amp.
#pragma once

#include "op_registry.h"

#include <ATen/core/Tensor.h>
#include <ATen/core/boxing/OperatorKernel.h>
#include <ATen/core/stack.h>
#include <c10/core/DispatchKey.h>
#include <c10/core/DispatchKeySet.h>

#include <optional>

namespace c10 {
class OperatorHandle;
}

namespace ampbench::amp::detail {

// The next widest type for kPromote after seeing `tensor`: float32 if it or `widest` is float32;
// ineligible tensors change nothing; a second 16-bit type is an error naming the op.
[[nodiscard]] c10::ScalarType widen(c10::ScalarType widest, const at::Tensor& tensor, c10::DeviceType device_type,
                                    const std::string& op);

// Throws the c10::Error of a banned op, naming the safe alternative where there is one.
[[noreturn]] void refuse_banned(const std::string& op);

// AutocastCPU or AutocastCUDA.
[[nodiscard]] c10::DispatchKey autocast_dispatch_key(c10::DeviceType device_type);

class AutocastKernel final : public c10::OperatorKernel {
 public:
  // dtype_argument: the position of the op's optional `dtype` argument, if it has one.
  AutocastKernel(OpEntry& entry, std::optional<std::size_t> dtype_argument);

  void operator()(const c10::OperatorHandle& op, c10::DispatchKeySet keys, torch::jit::Stack* stack);

 private:
  OpEntry& entry_;
  c10::DispatchKey key_;
  std::optional<std::size_t> dtype_argument_;
};

}  // namespace ampbench::amp::detail
