// ampbench's default autocast policy, one line per op. The entries reproduce LibTorch 2.15's
// native autocast policy for the same op and device type (aten/src/ATen/autocast_mode.cpp of that
// release, cross-checked against the dispatcher's AutocastCPU/AutocastCUDA registrations and, on
// CPU, against native results by tests/amp/autocast_conformance_test.cpp). Where an older
// supported release differs, the entry follows the LibTorch built against (torch_compat.h).
//
// Ops LibTorch's native autocast handles that are deliberately left out (they keep their native
// kernel): CPU mkldnn_rnn_layer, _native_multi_head_attention, stft, the LAPACK-backed
// factorisations (qr, svd, eig*, lstsq, lu_solve, ...), ctc_loss, linalg_matrix_sqrth; CUDA
// norm.Scalar / norm.ScalarOpt_dim (fp32_append_dtype: redispatch to another overload),
// _cudnn_rnn, linalg_matrix_sqrth. Add them with set_op_policy where needed.
#include "op_policy_table.h"

#include "torch_compat.h"

namespace ampbench::amp::detail {
namespace {

constexpr CastPolicy kLow = CastPolicy::kLowerPrecision;
constexpr CastPolicy kFp32 = CastPolicy::kFp32;
constexpr CastPolicy kOptDtype = CastPolicy::kFp32SetOptDtype;
constexpr CastPolicy kPromote = CastPolicy::kPromote;
constexpr CastPolicy kBanned = CastPolicy::kBanned;

// LibTorch's CPU list is its own, shorter than CUDA's: on CPU, layer_norm, softmax, sum, exp,
// pow, ... have no autocast rule and run in whatever dtype their inputs have.
constexpr DefaultOpPolicy kCpuTable[] = {
    // Matmuls, convolutions, attention: run in the scope's dtype.
    {"conv1d", kLow},
    {"conv1d.padding", kLow},
    {"conv2d", kLow},
    {"conv2d.padding", kLow},
    {"conv3d", kLow},
    {"conv3d.padding", kLow},
    {"bmm", kLow},
    {"mm", kLow},
    {"linalg_vecdot", kLow},
    {"baddbmm", kLow},
    {"addmm", kLow},
    {"_addmm_activation", kLow},
    {"addbmm", kLow},
    {"linear", kLow},
    {"_convolution.deprecated", kLow},
    {"matmul", kLow},
    {"conv_tbc", kLow},
    {"conv_transpose1d", kLow},
    {"conv_transpose2d.input", kLow},
    {"conv_transpose3d.input", kLow},
    {"prelu", kLow},
    {"scaled_dot_product_attention", kLow},
    // Losses: float32, so the reduction neither overflows nor loses the small terms.
    {"mse_loss", kFp32},
    {"cross_entropy_loss", kFp32},
    {"nll_loss", kFp32},
    {"nll_loss2d", kFp32},
    {"l1_loss", kFp32},
    {"smooth_l1_loss", kFp32},
    {"huber_loss", kFp32},
    {"kl_div", kFp32},
    {"binary_cross_entropy", kFp32},
    {"binary_cross_entropy_with_logits", kFp32},
    {"poisson_nll_loss", kFp32},
    {"hinge_embedding_loss", kFp32},
    {"margin_ranking_loss", kFp32},
    {"soft_margin_loss", kFp32},
    {"cosine_embedding_loss", kFp32},
    {"triplet_margin_loss", kFp32},
    {"multi_margin_loss", kFp32},
    {"multilabel_margin_loss", kFp32},
    // 3-D pooling, padding and sampling: float32 on CPU (no fast 16-bit kernels there).
    {"avg_pool3d", kFp32},
    {"max_pool3d", kFp32},
    {"adaptive_avg_pool3d", kFp32},
    {"adaptive_max_pool3d", kFp32},
    {"max_unpool2d", kFp32},
    {"max_unpool3d", kFp32},
    {"reflection_pad1d", kFp32},
    {"reflection_pad2d", kFp32},
    {"replication_pad1d", kFp32},
    {"replication_pad2d", kFp32},
    {"replication_pad3d", kFp32},
    {"grid_sampler", kFp32},
    {"grid_sampler_2d", kFp32},
    {"grid_sampler_3d", kFp32},
    // Reductions and distances that accumulate: float32.
    {"prod", kFp32},
    {"prod.dim_int", kFp32},
    {"quantile", kFp32},
    {"quantile.scalar", kFp32},
    {"nanquantile", kFp32},
    {"nanquantile.scalar", kFp32},
    {"cdist", kFp32},
    {"trace", kFp32},
    // FFTs and linear algebra: no 16-bit CPU kernels, so float32.
    {"fft_fft", kFp32},
    {"fft_ifft", kFp32},
    {"fft_fft2", kFp32},
    {"fft_ifft2", kFp32},
    {"fft_fftn", kFp32},
    {"fft_ifftn", kFp32},
    {"fft_rfft", kFp32},
    {"fft_irfft", kFp32},
    {"fft_rfft2", kFp32},
    {"fft_irfft2", kFp32},
    {"fft_rfftn", kFp32},
    {"fft_irfftn", kFp32},
    {"fft_hfft", kFp32},
    {"fft_ihfft", kFp32},
    {"inverse", kFp32},
    {"pinverse", kFp32},
    {"linalg_inv", kFp32},
    {"linalg_solve", kFp32},
    {"linalg_cholesky", kFp32},
    {"linalg_svdvals", kFp32},
    {"linalg_eigvalsh", kFp32},
    {"cholesky_inverse", kFp32},
    // Multi-input ops whose inputs must share a dtype: the widest input wins.
    {"cat", kPromote},
    {"stack", kPromote},
    {"index_copy", kPromote},
};

// CUDA follows the shared lists of LibTorch's autocast_mode.h plus its CUDA-only entries.
constexpr DefaultOpPolicy kCudaTable[] = {
    // Matmuls, convolutions, attention, RNN cells: run in the scope's dtype (tensor cores).
    {"_convolution.deprecated", kLow},
    {"_convolution", kLow},
    {"conv1d", kLow},
    {"conv2d", kLow},
    {"conv3d", kLow},
    {"conv_tbc", kLow},
    {"conv_transpose1d", kLow},
    {"conv_transpose2d.input", kLow},
    {"conv_transpose3d.input", kLow},
    {"convolution", kLow},
    {"cudnn_convolution", kLow},
    {"cudnn_convolution_transpose", kLow},
    {"prelu", kLow},
    {"addmm", kLow},
    {"addmv", kLow},
    {"addr", kLow},
    {"matmul", kLow},
    {"einsum", kLow},
    {"mm", kLow},
    {"mv", kLow},
    {"linalg_vecdot", kLow},
    {"linear", kLow},
    {"addbmm", kLow},
    {"baddbmm", kLow},
    {"bmm", kLow},
    {"chain_matmul", kLow},
    {"linalg_multi_dot", kLow},
    {"_thnn_fused_lstm_cell", kLow},
    {"_thnn_fused_gru_cell", kLow},
    {"lstm_cell", kLow},
    {"gru_cell", kLow},
    {"rnn_tanh_cell", kLow},
    {"rnn_relu_cell", kLow},
    {"_scaled_dot_product_flash_attention", kLow},
    {"scaled_dot_product_attention", kLow},
    // Pointwise ops with a narrow 16-bit range or accuracy: float32.
    {"acos", kFp32},
    {"asin", kFp32},
    {"cosh", kFp32},
    {"erfinv", kFp32},
    {"exp", kFp32},
    {"expm1", kFp32},
    {"log", kFp32},
    {"log10", kFp32},
    {"log2", kFp32},
    {"log1p", kFp32},
    {"reciprocal", kFp32},
    {"rsqrt", kFp32},
    {"sinh", kFp32},
    {"tan", kFp32},
    {"pow.Tensor_Scalar", kFp32},
    {"pow.Tensor_Tensor", kFp32},
    {"pow.Scalar", kFp32},
    {"softplus", kFp32},
    // Normalisations: float32 statistics.
    {"layer_norm", kFp32},
    {"native_layer_norm", kFp32},
#if AMPBENCH_NATIVE_CUDA_AUTOCAST_HAS_RMS_NORM
    {"rms_norm", kFp32},
#endif
    {"group_norm", kFp32},
    {"frobenius_norm.dim", kFp32},
    {"nuclear_norm", kFp32},
    {"nuclear_norm.dim", kFp32},
    {"cosine_similarity", kFp32},
    // Losses: float32.
    {"poisson_nll_loss", kFp32},
    {"cosine_embedding_loss", kFp32},
    {"nll_loss", kFp32},
    {"nll_loss2d", kFp32},
    {"hinge_embedding_loss", kFp32},
    {"kl_div", kFp32},
    {"l1_loss", kFp32},
    {"smooth_l1_loss", kFp32},
    {"huber_loss", kFp32},
    {"mse_loss", kFp32},
    {"margin_ranking_loss", kFp32},
    {"multilabel_margin_loss", kFp32},
    {"soft_margin_loss", kFp32},
    {"triplet_margin_loss", kFp32},
    {"multi_margin_loss", kFp32},
    {"binary_cross_entropy_with_logits", kFp32},
    // Distances, reductions, resampling: float32.
    {"dist", kFp32},
    {"pdist", kFp32},
    {"cdist", kFp32},
    {"renorm", kFp32},
    {"logsumexp", kFp32},
    {"upsample_nearest1d", kFp32},
    {"_upsample_nearest_exact1d", kFp32},
    {"upsample_nearest2d", kFp32},
    {"_upsample_nearest_exact2d", kFp32},
    {"upsample_nearest3d", kFp32},
    {"_upsample_nearest_exact3d", kFp32},
    {"upsample_linear1d", kFp32},
    {"upsample_bilinear2d", kFp32},
    {"_upsample_bilinear2d_aa", kFp32},
    {"upsample_trilinear3d", kFp32},
    {"upsample_bicubic2d", kFp32},
    {"_upsample_bicubic2d_aa", kFp32},
    // Ops with an optional output dtype: accumulate and return float32 through it.
    {"prod", kOptDtype},
    {"prod.dim_int", kOptDtype},
    {"softmax.int", kOptDtype},
    {"log_softmax.int", kOptDtype},
    {"cumprod", kOptDtype},
    {"cumsum", kOptDtype},
    {"linalg_vector_norm", kOptDtype},
    {"linalg_matrix_norm", kOptDtype},
    {"linalg_matrix_norm.str_ord", kOptDtype},
    {"sum", kOptDtype},
    {"sum.dim_IntList", kOptDtype},
    // Multi-input ops whose inputs must share a dtype: the widest input wins.
    {"addcdiv", kPromote},
    {"addcmul", kPromote},
    {"atan2", kPromote},
    {"bilinear", kPromote},
    {"cross", kPromote},
    {"dot", kPromote},
    {"vdot", kPromote},
    {"grid_sampler", kPromote},
    {"index_put", kPromote},
    {"tensordot", kPromote},
    {"scatter_add", kPromote},
    // Unsafe under autocast: a 16-bit sigmoid output saturates; use the *_with_logits loss.
    {"binary_cross_entropy", kBanned},
};

}  // namespace

std::span<const DefaultOpPolicy> default_op_table(c10::DeviceType device_type) noexcept {
  switch (device_type) {
    case c10::DeviceType::CPU:
      return kCpuTable;
    case c10::DeviceType::CUDA:
      return kCudaTable;
    default:
      return {};
  }
}

}  // namespace ampbench::amp::detail
