#include "flops.h"

#include <ATen/core/Tensor.h>

#include <array>
#include <utility>

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

// The tensor at position i, or nullptr when there is none.
const at::Tensor* tensor_arg(c10::ArrayRef<c10::IValue> args, std::size_t i) {
  if (i >= args.size() || !args[i].isTensor()) {
    return nullptr;
  }
  const at::Tensor& t = args[i].toTensor();
  return t.defined() ? &t : nullptr;
}

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

FlopPlan convolution(c10::ArrayRef<c10::IValue> args) {
  const at::Tensor* input = tensor_arg(args, 0);
  const at::Tensor* weight = tensor_arg(args, 1);
  if (input == nullptr || weight == nullptr) {
    return {};
  }
  // convolution and _convolution carry the transposed flag at position 6.
  if (args.size() > 6 && args[6].isBool() && args[6].toBool()) {
    return {2.0 * elements(*input) * weight_per_channel(*weight), 0.0};
  }
  return {0.0, 2.0 * weight_per_channel(*weight)};
}

FlopPlan attention(c10::ArrayRef<c10::IValue> args) {
  const at::Tensor* q = tensor_arg(args, 0);
  const at::Tensor* k = tensor_arg(args, 1);
  const at::Tensor* v = tensor_arg(args, 2);
  if (q == nullptr || k == nullptr || v == nullptr || q->dim() < 2 || k->dim() < 2 || v->dim() < 2 ||
      q->size(-1) == 0) {
    return {};
  }
  const double queries = elements(*q) / static_cast<double>(q->size(-1));  // batch * L
  const double keys = static_cast<double>(k->size(-2));                 // S
  const double width = static_cast<double>(q->size(-1) + v->size(-1));  // E + Ev
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

FlopPlan plan_flops(FlopFormula formula, c10::ArrayRef<c10::IValue> args) {
  switch (formula) {
    case FlopFormula::kNone:
      return {};
    case FlopFormula::kMm:
    case FlopFormula::kBmm:
      return batched_product(tensor_arg(args, 0), tensor_arg(args, 1));
    case FlopFormula::kAddmm:
    case FlopFormula::kBaddbmm:
      return batched_product(tensor_arg(args, 1), tensor_arg(args, 2));
    case FlopFormula::kMatmul: {
      const at::Tensor* self = tensor_arg(args, 0);
      return self == nullptr || self->dim() == 0 ? FlopPlan{}
                                                 : FlopPlan{0.0, 2.0 * static_cast<double>(self->size(-1))};
    }
    case FlopFormula::kLinear: {
      const at::Tensor* input = tensor_arg(args, 0);
      const at::Tensor* weight = tensor_arg(args, 1);
      if (input == nullptr || weight == nullptr) {
        return {};
      }
      const double outputs = weight->dim() == 2 ? static_cast<double>(weight->size(0)) : 1.0;
      return {2.0 * elements(*input) * outputs, 0.0};
    }
    case FlopFormula::kConvolution:
      return convolution(args);
    case FlopFormula::kConvTranspose: {
      const at::Tensor* input = tensor_arg(args, 0);
      const at::Tensor* weight = tensor_arg(args, 1);
      return input == nullptr || weight == nullptr ? FlopPlan{}
                                                   : FlopPlan{2.0 * elements(*input) * weight_per_channel(*weight), 0.0};
    }
    case FlopFormula::kConvTbc: {
      const at::Tensor* weight = tensor_arg(args, 1);
      return weight == nullptr || weight->dim() != 3
                 ? FlopPlan{}
                 : FlopPlan{0.0, 2.0 * static_cast<double>(weight->size(0) * weight->size(1))};
    }
    case FlopFormula::kAttention:
      return attention(args);
  }
  return {};
}

}  // namespace ampbench::amp::detail
