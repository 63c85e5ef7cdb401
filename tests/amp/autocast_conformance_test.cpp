// Conformance of ampbench's autocast with LibTorch's native autocast, op by op, on CPU: for every
// op of the CPU default table and for bfloat16 and float16, the op's output under ampbench's
// Autocast has the dtype and the values (bitwise) of the output under LibTorch's native autocast,
// and of a control run on inputs cast by hand per the op's policy without autocast. Modelled on
// PyTorch's torch/testing/_internal/autocast_test_lists.py: a list of (op, inputs, call).
//
// Inputs follow the policy under test: float32 for lower-precision ops (autocast must cast them
// down), the scope's dtype for float32 ops (it must cast them up), and a float32/low mix for
// promote ops. Native results are taken after release_autocast_kernels(), so LibTorch's own
// kernels serve them.
#include "ampbench/amp/autocast.h"
#include "ampbench/amp/op_counters.h"
#include "ampbench/amp/op_policy.h"
#include "native_loop/native_autocast.h"

#include <ATen/autocast_mode.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace {

using ampbench::amp::CastPolicy;
using Tensors = std::vector<torch::Tensor>;
constexpr auto kCpu = c10::DeviceType::CPU;

// Builds an op's inputs for a scope dtype: float32 ones and ones in the scope's dtype.
struct InputMaker {
  torch::ScalarType low;
  torch::Tensor f32(torch::IntArrayRef shape) const { return torch::randn(shape); }
  torch::Tensor lp(torch::IntArrayRef shape) const { return torch::randn(shape).to(low); }
  torch::Tensor lp_unit(torch::IntArrayRef shape) const { return torch::rand(shape).mul(0.8).add(0.1).to(low); }
  torch::Tensor lp_spd(int64_t n) const {
    const auto a = torch::randn({n, n});
    return (a.matmul(a.t()) + n * torch::eye(n)).to(low);
  }
};

struct OpCase {
  std::string op;  // the table entry the call must reach
  std::function<Tensors(const InputMaker&)> inputs;
  std::function<torch::Tensor(const Tensors&)> call;
};

torch::Tensor labels(torch::IntArrayRef shape, int64_t classes) { return torch::randint(classes, shape); }

std::vector<OpCase> cpu_cases() {
  using M = const InputMaker&;
  using T = const Tensors&;
  return {
      // Lower precision: float32 inputs.
      {"conv1d",
       [](M m) {
         return Tensors{m.f32({2, 3, 8}), m.f32({4, 3, 3}), m.f32({4})};
       },
       [](T t) { return at::conv1d(t[0], t[1], t[2]); }},
      {"conv1d.padding",
       [](M m) {
         return Tensors{m.f32({2, 3, 8}), m.f32({4, 3, 3}), m.f32({4})};
       },
       [](T t) { return at::conv1d(t[0], t[1], t[2], 1, "same"); }},
      {"conv2d",
       [](M m) {
         return Tensors{m.f32({2, 3, 6, 6}), m.f32({4, 3, 3, 3}), m.f32({4})};
       },
       [](T t) { return at::conv2d(t[0], t[1], t[2]); }},
      {"conv2d.padding",
       [](M m) {
         return Tensors{m.f32({2, 3, 6, 6}), m.f32({4, 3, 3, 3}), m.f32({4})};
       },
       [](T t) { return at::conv2d(t[0], t[1], t[2], 1, "same"); }},
      {"conv3d",
       [](M m) {
         return Tensors{m.f32({1, 2, 4, 4, 4}), m.f32({3, 2, 2, 2, 2}), m.f32({3})};
       },
       [](T t) { return at::conv3d(t[0], t[1], t[2]); }},
      {"conv3d.padding",
       [](M m) {
         return Tensors{m.f32({1, 2, 4, 4, 4}), m.f32({3, 2, 3, 3, 3}), m.f32({3})};
       },
       [](T t) { return at::conv3d(t[0], t[1], t[2], 1, "same"); }},
      {"bmm",
       [](M m) {
         return Tensors{m.f32({2, 3, 4}), m.f32({2, 4, 5})};
       },
       [](T t) { return at::bmm(t[0], t[1]); }},
      {"mm",
       [](M m) {
         return Tensors{m.f32({3, 4}), m.f32({4, 5})};
       },
       [](T t) { return at::mm(t[0], t[1]); }},
      {"linalg_vecdot",
       [](M m) {
         return Tensors{m.f32({3, 4}), m.f32({3, 4})};
       },
       [](T t) { return at::linalg_vecdot(t[0], t[1]); }},
      {"baddbmm",
       [](M m) {
         return Tensors{m.f32({2, 3, 5}), m.f32({2, 3, 4}), m.f32({2, 4, 5})};
       },
       [](T t) { return at::baddbmm(t[0], t[1], t[2]); }},
      {"addmm",
       [](M m) {
         return Tensors{m.f32({3, 5}), m.f32({3, 4}), m.f32({4, 5})};
       },
       [](T t) { return at::addmm(t[0], t[1], t[2]); }},
      {"_addmm_activation",
       [](M m) {
         return Tensors{m.f32({3, 5}), m.f32({3, 4}), m.f32({4, 5})};
       },
       [](T t) { return at::_addmm_activation(t[0], t[1], t[2]); }},
      {"addbmm",
       [](M m) {
         return Tensors{m.f32({3, 5}), m.f32({2, 3, 4}), m.f32({2, 4, 5})};
       },
       [](T t) { return at::addbmm(t[0], t[1], t[2]); }},
      {"linear",
       [](M m) {
         return Tensors{m.f32({3, 4}), m.f32({5, 4}), m.f32({5})};
       },
       [](T t) { return at::linear(t[0], t[1], t[2]); }},
      {"_convolution.deprecated",
       [](M m) {
         return Tensors{m.f32({2, 3, 6, 6}), m.f32({4, 3, 3, 3}), m.f32({4})};
       },
       [](T t) {
         return at::_convolution(t[0], t[1], t[2], {1, 1}, {0, 0}, {1, 1}, false, {0, 0}, 1, false, false, true);
       }},
      {"matmul",
       [](M m) {
         return Tensors{m.f32({2, 3, 4}), m.f32({4, 5})};
       },
       [](T t) { return at::matmul(t[0], t[1]); }},
      {"conv_tbc",
       [](M m) {
         return Tensors{m.f32({5, 2, 3}), m.f32({3, 3, 4}), m.f32({4})};
       },
       [](T t) { return at::conv_tbc(t[0], t[1], t[2], 1); }},
      {"conv_transpose1d",
       [](M m) {
         return Tensors{m.f32({2, 4, 5}), m.f32({4, 3, 3}), m.f32({3})};
       },
       [](T t) { return at::conv_transpose1d(t[0], t[1], t[2]); }},
      {"conv_transpose2d.input",
       [](M m) {
         return Tensors{m.f32({1, 4, 5, 5}), m.f32({4, 3, 3, 3}), m.f32({3})};
       },
       [](T t) { return at::conv_transpose2d(t[0], t[1], t[2]); }},
      {"conv_transpose3d.input",
       [](M m) {
         return Tensors{m.f32({1, 2, 3, 3, 3}), m.f32({2, 2, 2, 2, 2}), m.f32({2})};
       },
       [](T t) { return at::conv_transpose3d(t[0], t[1], t[2]); }},
      {"prelu",
       [](M m) {
         return Tensors{m.f32({2, 3, 4}), m.f32({3})};
       },
       [](T t) { return at::prelu(t[0], t[1]); }},
      {"scaled_dot_product_attention",
       [](M m) {
         return Tensors{m.f32({2, 2, 4, 8}), m.f32({2, 2, 4, 8}), m.f32({2, 2, 4, 8})};
       },
       [](T t) { return at::scaled_dot_product_attention(t[0], t[1], t[2]); }},
      // Float32: inputs in the scope's dtype.
      {"mse_loss",
       [](M m) {
         return Tensors{m.lp({4, 5}), m.lp({4, 5})};
       },
       [](T t) { return at::mse_loss(t[0], t[1]); }},
      {"cross_entropy_loss",
       [](M m) {
         return Tensors{m.lp({4, 5}), labels({4}, 5)};
       },
       [](T t) { return at::cross_entropy_loss(t[0], t[1]); }},
      {"nll_loss",
       [](M m) {
         return Tensors{m.lp({4, 5}), labels({4}, 5)};
       },
       [](T t) { return at::nll_loss(t[0], t[1]); }},
      {"nll_loss2d",
       [](M m) {
         return Tensors{m.lp({2, 3, 4, 4}), labels({2, 4, 4}, 3)};
       },
       [](T t) { return at::nll_loss2d(t[0], t[1]); }},
      {"l1_loss",
       [](M m) {
         return Tensors{m.lp({4, 5}), m.lp({4, 5})};
       },
       [](T t) { return at::l1_loss(t[0], t[1]); }},
      {"smooth_l1_loss",
       [](M m) {
         return Tensors{m.lp({4, 5}), m.lp({4, 5})};
       },
       [](T t) { return at::smooth_l1_loss(t[0], t[1]); }},
      {"huber_loss",
       [](M m) {
         return Tensors{m.lp({4, 5}), m.lp({4, 5})};
       },
       [](T t) { return at::huber_loss(t[0], t[1]); }},
      {"kl_div",
       [](M m) {
         return Tensors{m.lp({4, 5}), m.lp_unit({4, 5})};
       },
       [](T t) { return at::kl_div(t[0], t[1]); }},
      {"binary_cross_entropy",
       [](M m) {
         return Tensors{m.lp_unit({4, 5}), m.lp_unit({4, 5})};
       },
       [](T t) { return at::binary_cross_entropy(t[0], t[1]); }},
      {"binary_cross_entropy_with_logits",
       [](M m) {
         return Tensors{m.lp({4, 5}), m.lp_unit({4, 5})};
       },
       [](T t) { return at::binary_cross_entropy_with_logits(t[0], t[1]); }},
      {"poisson_nll_loss",
       [](M m) {
         return Tensors{m.lp({4, 5}), m.lp_unit({4, 5})};
       },
       [](T t) { return at::poisson_nll_loss(t[0], t[1], true, false, 1e-8, at::Reduction::Mean); }},
      {"hinge_embedding_loss",
       [](M m) {
         return Tensors{m.lp({4, 5}), m.lp({4, 5}).sign()};
       },
       [](T t) { return at::hinge_embedding_loss(t[0], t[1]); }},
      {"margin_ranking_loss",
       [](M m) {
         return Tensors{m.lp({6}), m.lp({6}), m.lp({6}).sign()};
       },
       [](T t) { return at::margin_ranking_loss(t[0], t[1], t[2]); }},
      {"soft_margin_loss",
       [](M m) {
         return Tensors{m.lp({4, 5}), m.lp({4, 5}).sign()};
       },
       [](T t) { return at::soft_margin_loss(t[0], t[1]); }},
      {"cosine_embedding_loss",
       [](M m) {
         return Tensors{m.lp({4, 5}), m.lp({4, 5}), m.lp({4}).sign()};
       },
       [](T t) { return at::cosine_embedding_loss(t[0], t[1], t[2]); }},
      {"triplet_margin_loss",
       [](M m) {
         return Tensors{m.lp({4, 5}), m.lp({4, 5}), m.lp({4, 5})};
       },
       [](T t) { return at::triplet_margin_loss(t[0], t[1], t[2]); }},
      {"multi_margin_loss",
       [](M m) {
         return Tensors{m.lp({4, 5}), labels({4}, 5)};
       },
       [](T t) { return at::multi_margin_loss(t[0], t[1]); }},
      {"multilabel_margin_loss",
       [](M m) {
         return Tensors{m.lp({4, 5}), labels({4, 5}, 5)};
       },
       [](T t) { return at::multilabel_margin_loss(t[0], t[1]); }},
      {"avg_pool3d",
       [](M m) {
         return Tensors{m.lp({1, 2, 4, 4, 4})};
       },
       [](T t) { return at::avg_pool3d(t[0], 2); }},
      {"max_pool3d",
       [](M m) {
         return Tensors{m.lp({1, 2, 4, 4, 4})};
       },
       [](T t) { return at::max_pool3d(t[0], 2); }},
      {"adaptive_avg_pool3d",
       [](M m) {
         return Tensors{m.lp({1, 2, 4, 4, 4})};
       },
       [](T t) {
         return at::adaptive_avg_pool3d(t[0], {2, 2, 2});
       }},
      {"adaptive_max_pool3d",
       [](M m) {
         return Tensors{m.lp({1, 2, 4, 4, 4})};
       },
       [](T t) {
         return std::get<0>(at::adaptive_max_pool3d(t[0], {2, 2, 2}));
       }},
      {"max_unpool2d",
       [](M m) {
         auto [values, indices] = at::max_pool2d_with_indices(torch::randn({1, 2, 4, 4}), 2);
         return Tensors{values.to(m.low), indices};
       },
       [](T t) {
         return at::max_unpool2d(t[0], t[1], {4, 4});
       }},
      {"max_unpool3d",
       [](M m) {
         auto [values, indices] = at::max_pool3d_with_indices(torch::randn({1, 2, 4, 4, 4}), 2);
         return Tensors{values.to(m.low), indices};
       },
       [](T t) {
         return at::max_unpool3d(t[0], t[1], {4, 4, 4}, {2, 2, 2}, {0, 0, 0});
       }},
      {"reflection_pad1d",
       [](M m) {
         return Tensors{m.lp({1, 2, 5})};
       },
       [](T t) {
         return at::reflection_pad1d(t[0], {1, 2});
       }},
      {"reflection_pad2d",
       [](M m) {
         return Tensors{m.lp({1, 2, 4, 4})};
       },
       [](T t) {
         return at::reflection_pad2d(t[0], {1, 1, 2, 0});
       }},
      {"replication_pad1d",
       [](M m) {
         return Tensors{m.lp({1, 2, 5})};
       },
       [](T t) {
         return at::replication_pad1d(t[0], {1, 2});
       }},
      {"replication_pad2d",
       [](M m) {
         return Tensors{m.lp({1, 2, 4, 4})};
       },
       [](T t) {
         return at::replication_pad2d(t[0], {1, 1, 2, 0});
       }},
      {"replication_pad3d",
       [](M m) {
         return Tensors{m.lp({1, 2, 3, 3, 3})};
       },
       [](T t) {
         return at::replication_pad3d(t[0], {1, 1, 1, 1, 1, 1});
       }},
      {"grid_sampler",
       [](M m) {
         return Tensors{m.lp({1, 2, 4, 4}), m.lp_unit({1, 3, 3, 2}).mul(2).sub(1)};
       },
       [](T t) { return at::grid_sampler(t[0], t[1], 0, 0, false); }},
      {"grid_sampler_2d",
       [](M m) {
         return Tensors{m.lp({1, 2, 4, 4}), m.lp_unit({1, 3, 3, 2}).mul(2).sub(1)};
       },
       [](T t) { return at::grid_sampler_2d(t[0], t[1], 0, 0, false); }},
      {"grid_sampler_3d",
       [](M m) {
         return Tensors{m.lp({1, 2, 3, 3, 3}), m.lp_unit({1, 2, 2, 2, 3}).mul(2).sub(1)};
       },
       [](T t) { return at::grid_sampler_3d(t[0], t[1], 0, 0, false); }},
      {"prod",
       [](M m) {
         return Tensors{m.lp({3, 4})};
       },
       [](T t) { return at::prod(t[0]); }},
      {"prod.dim_int",
       [](M m) {
         return Tensors{m.lp({3, 4})};
       },
       [](T t) { return at::prod(t[0], 1); }},
      {"quantile",
       [](M m) {
         return Tensors{m.lp({3, 8}), m.lp_unit({2})};
       },
       [](T t) { return at::quantile(t[0], t[1], 1); }},
      {"quantile.scalar",
       [](M m) {
         return Tensors{m.lp({3, 8})};
       },
       [](T t) { return at::quantile(t[0], 0.3, 1); }},
      {"nanquantile",
       [](M m) {
         return Tensors{m.lp({3, 8}), m.lp_unit({2})};
       },
       [](T t) { return at::nanquantile(t[0], t[1], 1); }},
      {"nanquantile.scalar",
       [](M m) {
         return Tensors{m.lp({3, 8})};
       },
       [](T t) { return at::nanquantile(t[0], 0.3, 1); }},
      {"cdist",
       [](M m) {
         return Tensors{m.lp({3, 4}), m.lp({5, 4})};
       },
       [](T t) { return at::cdist(t[0], t[1]); }},
      {"trace",
       [](M m) {
         return Tensors{m.lp({4, 4})};
       },
       [](T t) { return at::trace(t[0]); }},
      {"fft_fft", [](M m) { return Tensors{m.lp({8})}; }, [](T t) { return at::fft_fft(t[0]); }},
      {"fft_ifft", [](M m) { return Tensors{m.lp({8})}; }, [](T t) { return at::fft_ifft(t[0]); }},
      {"fft_fft2",
       [](M m) {
         return Tensors{m.lp({4, 4})};
       },
       [](T t) { return at::fft_fft2(t[0]); }},
      {"fft_ifft2",
       [](M m) {
         return Tensors{m.lp({4, 4})};
       },
       [](T t) { return at::fft_ifft2(t[0]); }},
      {"fft_fftn",
       [](M m) {
         return Tensors{m.lp({2, 4, 4})};
       },
       [](T t) { return at::fft_fftn(t[0]); }},
      {"fft_ifftn",
       [](M m) {
         return Tensors{m.lp({2, 4, 4})};
       },
       [](T t) { return at::fft_ifftn(t[0]); }},
      {"fft_rfft", [](M m) { return Tensors{m.lp({8})}; }, [](T t) { return at::fft_rfft(t[0]); }},
      {"fft_irfft", [](M m) { return Tensors{m.lp({8})}; }, [](T t) { return at::fft_irfft(t[0]); }},
      {"fft_rfft2",
       [](M m) {
         return Tensors{m.lp({4, 4})};
       },
       [](T t) { return at::fft_rfft2(t[0]); }},
      {"fft_irfft2",
       [](M m) {
         return Tensors{m.lp({4, 4})};
       },
       [](T t) { return at::fft_irfft2(t[0]); }},
      {"fft_rfftn",
       [](M m) {
         return Tensors{m.lp({2, 4, 4})};
       },
       [](T t) { return at::fft_rfftn(t[0]); }},
      {"fft_irfftn",
       [](M m) {
         return Tensors{m.lp({2, 4, 4})};
       },
       [](T t) { return at::fft_irfftn(t[0]); }},
      {"fft_hfft", [](M m) { return Tensors{m.lp({8})}; }, [](T t) { return at::fft_hfft(t[0]); }},
      {"fft_ihfft", [](M m) { return Tensors{m.lp({8})}; }, [](T t) { return at::fft_ihfft(t[0]); }},
      {"inverse", [](M m) { return Tensors{m.lp_spd(4)}; }, [](T t) { return at::inverse(t[0]); }},
      {"pinverse",
       [](M m) {
         return Tensors{m.lp({4, 3})};
       },
       [](T t) { return at::pinverse(t[0]); }},
      {"linalg_inv", [](M m) { return Tensors{m.lp_spd(4)}; }, [](T t) { return at::linalg_inv(t[0]); }},
      {"linalg_solve",
       [](M m) {
         return Tensors{m.lp_spd(4), m.lp({4, 2})};
       },
       [](T t) { return at::linalg_solve(t[0], t[1]); }},
      {"linalg_cholesky", [](M m) { return Tensors{m.lp_spd(4)}; }, [](T t) { return at::linalg_cholesky(t[0]); }},
      {"linalg_svdvals",
       [](M m) {
         return Tensors{m.lp({4, 3})};
       },
       [](T t) { return at::linalg_svdvals(t[0]); }},
      {"linalg_eigvalsh", [](M m) { return Tensors{m.lp_spd(4)}; }, [](T t) { return at::linalg_eigvalsh(t[0]); }},
      {"cholesky_inverse", [](M m) { return Tensors{at::linalg_cholesky(m.lp_spd(4).to(torch::kFloat)).to(m.low)}; },
       [](T t) { return at::cholesky_inverse(t[0]); }},
      // Promote: one float32 input among inputs in the scope's dtype.
      {"cat",
       [](M m) {
         return Tensors{m.f32({2, 3}), m.lp({2, 3})};
       },
       [](T t) {
         return at::cat({t[0], t[1]});
       }},
      {"stack",
       [](M m) {
         return Tensors{m.lp({2, 3}), m.f32({2, 3})};
       },
       [](T t) {
         return at::stack({t[0], t[1]});
       }},
      {"index_copy",
       [](M m) {
         return Tensors{m.f32({5, 3}), torch::tensor({0, 3}), m.lp({2, 3})};
       },
       [](T t) { return at::index_copy(t[0], 0, t[1], t[2]); }},
  };
}

// The control: inputs cast by hand as the policy says, then the op without autocast.
Tensors cast_by_hand(const Tensors& inputs, CastPolicy policy, torch::ScalarType low) {
  const auto floating = [](const torch::Tensor& t) {
    return t.is_floating_point() && t.scalar_type() != torch::kDouble;
  };
  torch::ScalarType target = low;
  if (policy == CastPolicy::kFp32) {
    target = torch::kFloat;
  } else if (policy == CastPolicy::kPromote) {
    for (const auto& t : inputs) {
      if (floating(t) && t.scalar_type() == torch::kFloat) {
        target = torch::kFloat;
      }
    }
  }
  Tensors cast;
  for (const auto& t : inputs) {
    cast.push_back(floating(t) ? t.to(target) : t);
  }
  return cast;
}

// The op's output, or nullopt with the error when the op rejects these inputs.
struct Outcome {
  std::optional<torch::Tensor> output;
  std::string error;
};

Outcome run(const OpCase& op_case, const Tensors& inputs) {
  try {
    return {op_case.call(inputs), {}};
  } catch (const c10::Error& e) {
    return {std::nullopt, e.what_without_backtrace()};
  }
}

// Bitwise equality, NaNs in the same places counting as equal.
bool same_values(const torch::Tensor& a, const torch::Tensor& b) {
  if (a.scalar_type() != b.scalar_type() || a.sizes() != b.sizes()) {
    return false;
  }
  return (a.eq(b) | (a.isnan() & b.isnan())).all().item<bool>();
}

void expect_same(const Outcome& actual, const Outcome& expected, const std::string& what) {
  ASSERT_EQ(actual.output.has_value(), expected.output.has_value())
      << what << ": one run failed, the other did not. Errors: '" << actual.error << "' vs '" << expected.error << "'";
  // Every case must run (an op that rejected its inputs everywhere would compare nothing).
  ASSERT_TRUE(expected.output.has_value()) << what << ": the case's inputs are rejected: " << expected.error;
  EXPECT_EQ(actual.output->scalar_type(), expected.output->scalar_type()) << what;
  EXPECT_TRUE(same_values(*actual.output, *expected.output)) << what << ": values differ";
}

void check_conformance(const OpCase& op_case, torch::ScalarType low) {
  SCOPED_TRACE(std::string("scope dtype ") + c10::toString(low));
  const auto policy = ampbench::amp::op_policy(kCpu, op_case.op);
  ASSERT_TRUE(policy.has_value()) << op_case.op << " is not in the CPU table";

  torch::manual_seed(0);
  const Tensors inputs = op_case.inputs(InputMaker{low});

  ampbench::amp::release_autocast_kernels();
  Outcome native;
  {
    const ampbench::bench::NativeAutocast scope(kCpu, low);  // not through ampbench
    native = run(op_case, inputs);
  }
  const Outcome control = run(op_case, cast_by_hand(inputs, *policy, low));

  ampbench::amp::reset_op_counts();
  Outcome ours;
  {
    const ampbench::amp::Autocast scope(kCpu, low);
    ours = run(op_case, inputs);
  }
  EXPECT_FALSE(at::autocast::is_autocast_enabled(kCpu));
  EXPECT_EQ(at::autocast::get_autocast_dtype(kCpu), torch::kBFloat16);

  expect_same(ours, native, op_case.op + " vs native autocast");
  expect_same(ours, control, op_case.op + " vs inputs cast by hand");
  if (ours.output) {
    const auto counts = ampbench::amp::op_counts();
    const bool reached = std::any_of(counts.begin(), counts.end(), [&](const auto& c) { return c.op == op_case.op; });
    EXPECT_TRUE(reached) << op_case.op << ": the call never reached ampbench's kernel for it";
  }
}

// One CTest test per op (its own process), both scope dtypes inside.
class AutocastConformance : public ::testing::TestWithParam<std::size_t> {};

TEST_P(AutocastConformance, MatchesNativeAutocastAndHandCastControl) {
  const OpCase op_case = cpu_cases().at(GetParam());
  check_conformance(op_case, torch::kBFloat16);
  check_conformance(op_case, torch::kHalf);
}

std::string param_name(const ::testing::TestParamInfo<std::size_t>& info) {
  std::string name = cpu_cases().at(info.param).op;
  std::replace(name.begin(), name.end(), '.', '_');
  return name;
}

INSTANTIATE_TEST_SUITE_P(Cpu, AutocastConformance, ::testing::Range<std::size_t>(0, cpu_cases().size()), param_name);

// Every op of the CPU table has a case above, and every case names a table op.
TEST(AutocastConformanceCoverage, EveryCpuTableOpHasACase) {
  std::set<std::string> cased;
  for (const auto& op_case : cpu_cases()) {
    cased.insert(op_case.op);
  }
  for (const auto& entry : ampbench::amp::default_op_policies(kCpu)) {
    EXPECT_TRUE(cased.count(entry.op) == 1) << entry.op << " has no conformance case";
  }
  EXPECT_EQ(cased.size(), ampbench::amp::default_op_policies(kCpu).size());
}

}  // namespace
