// Forward FLOPs of the ops whose cost is dominated by multiply-adds, from argument shapes
// (a multiply-add counts 2). Private to ampbench::amp.
#pragma once

#include <ATen/core/ivalue.h>
#include <c10/util/ArrayRef.h>

#include <array>
#include <cstdint>
#include <string_view>

namespace ampbench::amp::detail {

enum class FlopFormula : std::uint8_t {
  kNone,
  kMm,             // mm(self[m,k], mat2[k,n])
  kAddmm,          // addmm / _addmm_activation(self, mat1[m,k], mat2[k,n])
  kBmm,            // bmm(self[b,m,k], mat2[b,k,n])
  kBaddbmm,        // baddbmm / addbmm(self, batch1[b,m,k], batch2[b,k,n])
  kMatmul,         // matmul(self[...,k], other): 2k per output element
  kLinear,         // linear(input[...,in], weight[out,in])
  kConvolution,    // conv*d, convolution, _convolution, cudnn_convolution: 2 * weight[0].numel() per output element
  kConvTranspose,  // conv_transpose*d, cudnn_convolution_transpose: 2 * weight[0].numel() per input element
  kConvTbc,        // conv_tbc(self, weight[k,in,out]): 2 * k * in per output element
  kAttention,      // scaled_dot_product_attention(q[...,L,E], k[...,S,E], v[...,S,Ev])
};

[[nodiscard]] FlopFormula flop_formula_for(std::string_view op) noexcept;

// FLOPs = fixed + per_output_element * (elements of the op's first result).
struct FlopPlan {
  double fixed = 0.0;
  double per_output_element = 0.0;
};

// The shape-bearing arguments: the tensors at argument positions 0, 1, 2 (nullptr where the
// argument is not a defined tensor), and the transposed flag of convolution/_convolution.
struct FlopOperands {
  std::array<const at::Tensor*, 3> tensors{};
  bool transposed = false;
};

// From boxed arguments in schema order, as they are before the call.
[[nodiscard]] FlopOperands flop_operands(c10::ArrayRef<c10::IValue> args);

// Operands without the expected shape give 0 rather than an error: counting must never break a
// model.
[[nodiscard]] FlopPlan plan_flops(FlopFormula formula, const FlopOperands& operands);

}  // namespace ampbench::amp::detail
