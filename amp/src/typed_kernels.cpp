#include "typed_kernels.h"

#include "typed_autocast_kernel.h"

#include <ATen/ops/addmm_ops.h>
#include <ATen/ops/baddbmm_ops.h>
#include <ATen/ops/bmm_ops.h>
#include <ATen/ops/conv1d_ops.h>
#include <ATen/ops/conv2d_ops.h>
#include <ATen/ops/conv3d_ops.h>
#include <ATen/ops/linear_ops.h>
#include <ATen/ops/matmul_ops.h>
#include <ATen/ops/mm_ops.h>

namespace ampbench::amp::detail {
namespace {

template <class Op, class Signature = typename Op::schema>
struct TypedKernelFactory;

template <class Op, class... Args>
struct TypedKernelFactory<Op, at::Tensor(Args...)> {
  static torch::CppFunction make(OpEntry& entry) {
    // A stateful lambda with the op's exact signature: the dispatcher checks it against the schema.
    return torch::CppFunction(
        [kernel = TypedAutocastKernel<Op>(entry)](Args... args) -> at::Tensor { return kernel(args...); });
  }
};

template <class Op>
bool names(const OpEntry& entry) {
  return entry.name == Op::name + 6 && *Op::overload_name == '\0';  // Op::name is "aten::<name>"
}

}  // namespace

std::optional<torch::CppFunction> make_typed_kernel(OpEntry& entry) {
  if (names<at::_ops::addmm>(entry)) return TypedKernelFactory<at::_ops::addmm>::make(entry);
  if (names<at::_ops::mm>(entry)) return TypedKernelFactory<at::_ops::mm>::make(entry);
  if (names<at::_ops::bmm>(entry)) return TypedKernelFactory<at::_ops::bmm>::make(entry);
  if (names<at::_ops::baddbmm>(entry)) return TypedKernelFactory<at::_ops::baddbmm>::make(entry);
  if (names<at::_ops::matmul>(entry)) return TypedKernelFactory<at::_ops::matmul>::make(entry);
  if (names<at::_ops::linear>(entry)) return TypedKernelFactory<at::_ops::linear>::make(entry);
  if (names<at::_ops::conv1d>(entry)) return TypedKernelFactory<at::_ops::conv1d>::make(entry);
  if (names<at::_ops::conv2d>(entry)) return TypedKernelFactory<at::_ops::conv2d>::make(entry);
  if (names<at::_ops::conv3d>(entry)) return TypedKernelFactory<at::_ops::conv3d>::make(entry);
  return std::nullopt;
}

}  // namespace ampbench::amp::detail
