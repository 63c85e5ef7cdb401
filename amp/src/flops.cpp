#include "flops.h"

#include <ATen/core/Tensor.h>

#include <array>

namespace ampbench::amp::detail {
namespace {

struct NamedFormula {
  std::string_view op;
  FlopFormula formula;
};

constexpr std::array kFormulas{
    NamedFormula{"mm", FlopFormula::kMm},
    NamedFormula{"addmm", FlopFormula::kAddmm},
    NamedFormula{"_addmm_activation", FlopFormula::kAddmm},
    NamedFormula{"bmm", FlopFormula::kBmm},
    NamedFormula{"baddbmm", FlopFormula::kBaddbmm},
    NamedFormula{"addbmm", FlopFormula::kBaddbmm},
    NamedFormula{"matmul", FlopFormula::kMatmul},
    NamedFormula{"linear", FlopFormula::kLinear},
    NamedFormula{"conv1d", FlopFormula::kConvolution},
    NamedFormula{"conv2d", FlopFormula::kConvolution},
    NamedFormula{"conv3d", FlopFormula::kConvolution},
    NamedFormula{"convolution", FlopFormula::kConvolution},
    NamedFormula{"_convolution", FlopFormula::kConvolution},
    NamedFormula{"cudnn_convolution", FlopFormula::kConvolution},
    NamedFormula{"conv_transpose1d", FlopFormula::kConvTranspose},
    NamedFormula{"conv_transpose2d", FlopFormula::kConvTranspose},
    NamedFormula{"conv_transpose3d", FlopFormula::kConvTranspose},
    NamedFormula{"cudnn_convolution_transpose", FlopFormula::kConvTranspose},
    NamedFormula{"conv_tbc", FlopFormula::kConvTbc},
    NamedFormula{"scaled_dot_product_attention", FlopFormula::kAttention},
    NamedFormula{"_scaled_dot_product_flash_attention", FlopFormula::kAttention},
};

double elements(const at::Tensor& t) { return static_cast<double>(t.numel()); }

// 2 * (a's elements) * (b's last dimension): mm, bmm and their add- variants alike.
FlopPlan batched_product(const at::Tensor* a, const at::Tensor* b) {
  if (a == nullptr || b == nullptr || a->dim() < 2 || b->dim() < 2) {
    return {};
  }
  return {2.0 * elements(*a) * static_cast<double>(b->size(-1)), 0.0};
}

// Weights of convolutions keep the output (or, transposed, the input) channels in dimension 0.
double weight_per_channel(const at::Tensor& weight) {
  return weight.dim() > 0 && weight.size(0) > 0 ? elements(weight) / static_cast<double>(weight.size(0)) : 0.0;
}

FlopPlan convolution(const FlopOperands& operands) {
  const at::Tensor* input = operands.tensors[0];
  const at::Tensor* weight = operands.tensors[1];
  if (input == nullptr || weight == nullptr) {
    return {};
  }
  if (operands.transposed) {
    return {2.0 * elements(*input) * weight_per_channel(*weight), 0.0};
  }
  return {0.0, 2.0 * weight_per_channel(*weight)};
}

FlopPlan attention(const FlopOperands& operands) {
  const at::Tensor* q = operands.tensors[0];
  const at::Tensor* k = operands.tensors[1];
  const at::Tensor* v = operands.tensors[2];
  if (q == nullptr || k == nullptr || v == nullptr || q->dim() < 2 || k->dim() < 2 || v->dim() < 2 ||
      q->size(-1) == 0) {
    return {};
  }
  const double queries = elements(*q) / static_cast<double>(q->size(-1));  // batch * L
  const double keys = static_cast<double>(k->size(-2));                    // S
  const double width = static_cast<double>(q->size(-1) + v->size(-1));     // E + Ev
  return {2.0 * queries * keys * width, 0.0};
}

}  // namespace

FlopFormula flop_formula_for(std::string_view op) noexcept {
  const std::string_view base = op.substr(0, op.find('.'));
  for (const auto& named : kFormulas) {
    if (named.op == base) {
      return named.formula;
    }
  }
  return FlopFormula::kNone;
}

FlopOperands flop_operands(c10::ArrayRef<c10::IValue> args) {
  FlopOperands operands;
  for (std::size_t i = 0; i < operands.tensors.size() && i < args.size(); ++i) {
    if (args[i].isTensor() && args[i].toTensor().defined()) {
      operands.tensors[i] = &args[i].toTensor();
    }
  }
  // convolution and _convolution carry the transposed flag at position 6.
  operands.transposed = args.size() > 6 && args[6].isBool() && args[6].toBool();
  return operands;
}

FlopPlan plan_flops(FlopFormula formula, const FlopOperands& operands) {
  const auto& [first, second, third] = operands.tensors;
  switch (formula) {
    case FlopFormula::kNone:
      return {};
    case FlopFormula::kMm:
    case FlopFormula::kBmm:
      return batched_product(first, second);
    case FlopFormula::kAddmm:
    case FlopFormula::kBaddbmm:
      return batched_product(second, third);
    case FlopFormula::kMatmul:
      return first == nullptr || first->dim() == 0 ? FlopPlan{}
                                                   : FlopPlan{0.0, 2.0 * static_cast<double>(first->size(-1))};
    case FlopFormula::kLinear: {
      if (first == nullptr || second == nullptr) {
        return {};
      }
      const double outputs = second->dim() == 2 ? static_cast<double>(second->size(0)) : 1.0;
      return {2.0 * elements(*first) * outputs, 0.0};
    }
    case FlopFormula::kConvolution:
      return convolution(operands);
    case FlopFormula::kConvTranspose:
      return first == nullptr || second == nullptr
                 ? FlopPlan{}
                 : FlopPlan{2.0 * elements(*first) * weight_per_channel(*second), 0.0};
    case FlopFormula::kConvTbc:
      return second == nullptr || second->dim() != 3
                 ? FlopPlan{}
                 : FlopPlan{0.0, 2.0 * static_cast<double>(second->size(0) * second->size(1))};
    case FlopFormula::kAttention:
      return attention(operands);
  }
  return {};
}

}  // namespace ampbench::amp::detail
