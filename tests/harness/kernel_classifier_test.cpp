// classify_kernel against kernel names that real profiles reported (nvprof, Nsight Systems, torch
// profiler, Nsight Compute, TensorRT tactic logs), Volta to Blackwell, each with where it was seen.
// A name that fails here after a library update means the pattern list needs a new line.
#include "profile/kernel_classifier.h"

#include <gtest/gtest.h>

#include <string>

namespace {

using ampbench::harness::classify_kernel;
using ampbench::harness::kNoRule;

struct SeenKernel {
  const char* name;
  bool tensor_core;
  const char* rule;  // the rule expected to decide
};

// clang-format off
const SeenKernel kTensorCoreKernels[] = {
    // Volta cuBLAS/cuDNN: a PyTorch profiler trace (volta_h884gemm_256x128_ldg8_nn, _64x64_nt),
    // an Nsight Compute table of volta_fp16_s884gemm, NVIDIA/apex#666 (nvprof, s884cudnn).
    {"volta_h884gemm_256x128_ldg8_nn", true, "mma-instruction-shape"},
    {"volta_h884gemm_64x64_nt", true, "mma-instruction-shape"},
    {"volta_fp16_s884gemm_fp16_256x128_ldg8_f2f_nn", true, "mma-instruction-shape"},
    {"volta_fp16_s884cudnn_fp16_256x128_ldg8_relu_f2f_exp_small_nhwc2nchw_tn_v1", true, "mma-instruction-shape"},
    // Turing: nvprof on a T4 (turing_h1688gemm_128x128_ldg8_nt), nsys stats (sliced1x2),
    // TensorFlow-TRT's banned-tactic list (s1688cudnn), TensorRT layer profile (trt_ prefix).
    {"turing_h1688gemm_128x128_ldg8_nt", true, "mma-instruction-shape"},
    {"turing_h1688gemm_256x64_sliced1x2_ldg8_tn", true, "mma-instruction-shape"},
    {"turing_fp16_s1688cudnn_fp16_128x128_ldg8_relu_f2f_exp_medium_nhwc_gelu_tn_v1", true, "mma-instruction-shape"},
    {"trt_turing_h1688gemm_256x64_ldg8_relu_stages_32x1_nn_v1", true, "mma-instruction-shape"},
    {"sm75_xmma_gemm_f16f16_f16f32_f32_nn_n_tilesize128x128x32", true, "xmma"},  // TensorRT profile, T4
    // Ampere cuBLAS: NVIDIA/cutlass#1025 (both), an nsys top-kernel table (bf16 s16816).
    {"ampere_fp16_s16816gemm_fp16_64x64_sliced1x2_ldg8_relu_f2f_stages_64x6_tn", true, "mma-instruction-shape"},
    {"ampere_bf16_s16816gemm_bf16_64x64_sliced1x2_ldg8_f2f_stages_64x5_nn", true, "mma-instruction-shape"},
    {"cutlass_80_tensorop_f16_s16816gemm_relu_f16_128x128_32x4_tn_align8", true, "mma-instruction-shape"},
    {"cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x256_32x3_tn_align8", true, "mma-instruction-shape"},
    // cuBLAS's WMMA kernels: nsys tables of a bf16 decode step and an fp16 bmm.
    {"void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_nn_align8>(T1::Params)", true, "mma-instruction-shape"},
    {"cutlass_80_wmma_tensorop_f16_s161616gemm_f16_16x16_128x2_tn_align8", true, "mma-instruction-shape"},
    // The same kernel as CUPTI reports it: mangled (checked with c++filt).
    {"_ZN7cutlass7Kernel2I68cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_nn_align8EEvNT_6ParamsE", true, "mma-instruction-shape"},
    // Ampere/Ada xmma: cuDNN fprop in a torch profile, TensorRT tactic log (TF32 GEMMs, sm80 and
    // sm86), a classifier test of an sm86 fp16 kernel, FP8 on Ada (sm89, e4m3) in a cuBLAS trace.
    {"sm80_xmma_fprop_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize128x32x32_stage4_warpsize4x1x1_g1_tensor16x8x16_execute_kernel__5x_cudnn", true, "xmma"},
    {"sm80_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize32x32x64", true, "xmma"},
    {"sm86_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize64x64x64", true, "xmma"},
    {"sm86_xmma_gemm_f16f16_f32f32_f16_tn_n_tilesize256x64x32_stage3_warpsize4x1x1_tensor16x8x16_execute_kernel__51", true, "xmma"},
    {"sm89_xmma_gemm_e4m3e4m3_e4m3f32_f32_tn_n_tilesize128x128x64_stage3_warpsize2x2x1_tensor16x8x32_bias_f16_execute_kernel__5x_cublas", true, "xmma"},
    {"sm89_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x32", true, "xmma"},
    // Hopper xmma: nsys of an fp32 (TF32) transformer on an H100, cuDNN dgrad in an nsys timeline.
    {"sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas", true, "xmma"},
    {"sm90_xmma_dgrad_implicit_gemm_f32f32_tf32f32_f32_nhwckrsc_nhwc_tilesize128x64x32_warpgroupsize1x1x1_g1_execute_segment_k_on_kernel__5x_cudnn", true, "xmma"},
    {"sm100_xmma_fprop_implicit_gemm_f16f16_f16f32_nhwc", true, "xmma"},  // cuDNN 9.2 on B200, a kernel table
    // Hopper/Blackwell cuBLAS nvjet: NVIDIA/Fuser#3137 and #3279 (nsys), vLLM/SGLang profiles.
    {"nvjet_hsh_192x192_64x3_2x1_v_bz_coopB_NTN", true, "cublas-nvjet"},
    {"nvjet_hsh_256x128_64x4_1x2_h_bz_coopA_NTT", true, "cublas-nvjet"},
    {"nvjet_sm90_hsh_8x64_64x16_4x1_v_bz_TNN", true, "cublas-nvjet"},
    {"nvjet_tst_128x256_64x6_2x1_2cta_v_bz_TNT", true, "cublas-nvjet"},
    {"nvjet_tst_128x8_64x12_2x1_v_bz_splitK_TNT", true, "cublas-nvjet"},
    {"nvjet_sss_tf32_128x256_TNT", true, "cublas-nvjet"},
    {"nvjet_sm100_tst_128x256_64x6_2x1_2cta_v_bz_TNT", true, "cublas-nvjet"},
    // CUTLASS 3: a profiler kernel list (H100) and a mangled sm100 FP8 GEMM from an SGLang
    // profile (tcgen05 UMMA atom), quoted as far as the source quotes it.
    {"cutlass3x_sm90_tensorop_s64x128x16gemm_f16_f16_f32_f16_f16_128x128x64_1x2x1_0_nnn_align8", true, "cutlass-tensorop"},
    {"_ZN7cutlass13device_kernelINS_4gemm6kernel13GemmUniversalIN4cute5tupleIJiiiiEEENS1_10collective"
     "13CollectiveMmaINS1_35MainloopSm100TmaUmmaWarpSpecializedILi13ELi2ELi4ENS5_IJNS4_1CILi1EEE", true, "cute-mma-atom"},
    // Attention: torch profiler tables (FlashAttention-2 forward with its template arguments and
    // backward), memory-efficient attention (f16 and fp32 = 3xTF32 on sm80), cuDNN SDPA.
    {"void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, cutlass::half_t, "
     "Flash_kernel_traits<128, 128, 64, 4, cutlass::half_t> >, false, false, false, false, true, true, false, false>"
     "(pytorch_flash::Flash_fwd_params)", true, "flash-attention"},
    {"flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel", true, "flash-attention"},
    {"fmha_cutlassF_f16_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<cutlass::half_t, "
     "cutlass::arch::Sm80, true, 64, 64, 64, true, true>::Params)", true, "mem-efficient-attention"},
    {"fmha_cutlassF_f32_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<float, cutlass::arch::Sm80, "
     "true, 64, 64, 64, true, true>::Params)", true, "mem-efficient-attention"},
    {"cudnn_generated_fort_native_sdpa_sm80_flash_fprop_wmma_f16_knob_3_64x64x128_4x1x1_kernel0_0", true, "wmma"},
};

const SeenKernel kCudaCoreKernels[] = {
    // FP32 SIMT GEMMs: nsys/torch profiles on V100 and A100, the TensorRT-free FP32 path.
    {"volta_sgemm_128x64_nn", false, kNoRule.data()},
    {"volta_sgemm_128x64_tn", false, kNoRule.data()},
    {"ampere_sgemm_128x64_tn", false, kNoRule.data()},
    {"ampere_sgemm_32x32_sliced1x4_tn", false, kNoRule.data()},
    {"volta_cgemm_32x64_tn", false, kNoRule.data()},  // NVIDIA/apex#666
    {"cutlass::Kernel2<cutlass_80_simt_sgemm_128x64_8x5_nt_align1>(T1::Params)", false, kNoRule.data()},
    // xmma FP32 on CUDA cores (FFMA): an nsys table on an A100, a Megatron profile on an H200 where
    // the name was cut before `_ffma`.
    {"sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize256x64x8_stage3_warpsize2x2x1_ffma_aligna4_alignc4_execute_kernel__5x_cublas", false, "xmma-cuda-core-fp32"},
    {"sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_128x128x8", false, "xmma-cuda-core-fp32"},
    // cuBLAS helpers: gemv (torch profile of a decode step), split-K reduction.
    {"void gemv2T_kernel_val<int, int, float, float, float, float, 128, 16, 4, 4, false, false, "
     "cublasGemvParamsEx<int, cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float const>, "
     "cublasGemvTensorStridedBatched<float>, float> >(cublasGemvParamsEx<int, cublasGemvTensorStridedBatched<float const>, "
     "cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float>, float>, float, float)", false, kNoRule.data()},
    {"void cublasLt::splitKreduce_kernel<32, 16, int, float, __half, float, __half, true, false, false>"
     "(cublasLt::cublasSplitKParams<float>, float const*, __half const*, __half*, float const*, float const*, "
     "__half const*, __half const*, __half*, void*, long, float*, int*)", false, kNoRule.data()},
    // cuDNN convolutions on CUDA cores: nvprof showing idle tensor units for hhgemm (fp16 without
    // tensor-op math), an FP32 ViT patch embedding, Winograd and SIMT cudnn in a TF trace.
    {"void implicit_convolve_hhgemm<__half, 0, 6, 6, 5, 4, 4, false, 1, true>(int, int, int, __half const*, int, "
     "__half*, __half const*, kernel_conv_params, unsigned long long, int, float, float, int, __half const*, "
     "__half const*, bool, int, int)", false, kNoRule.data()},
    {"void cudnn::detail::implicit_convolve_sgemm<float, float, 128, 5, 5, 3, 3, 3, 1, false, false, true>"
     "(int, int, int, float const*, int, float*, float const*, kernel_conv_params, unsigned long long, int, "
     "float, float, int, float const*, float const*, bool, int, int)", false, kNoRule.data()},
    {"maxwell_scudnn_winograd_128x128_ldg1_ldg4_tile150x150", false, kNoRule.data()},
    {"volta_scudnn_128x64_relu_interior_nn_v1", false, kNoRule.data()},
    // PyTorch's own kernels (torch profiler tables), demangled and mangled.
    {"void at::native::vectorized_elementwise_kernel<4, at::native::BUnaryFunctor<float, float, float, "
     "at::native::binary_internal::MulFunctor<float> >, std::array<char*, 2ul> >(int, at::native::BUnaryFunctor<"
     "float, float, float, at::native::binary_internal::MulFunctor<float> >, std::array<char*, 2ul>)", false, kNoRule.data()},
    {"_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_13BUnaryFunctorIfffNS0_15binary_internal10MulFunctorIfEEEESt5"
     "arrayIPcLm2EEEEviT0_T1_", false, kNoRule.data()},
    {"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, "
     "unsigned int, float, 4> >(at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, unsigned int, "
     "float, 4>)", false, kNoRule.data()},
    {"void (anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, (anonymous namespace)::SoftMaxForwardEpilogue>"
     "(float*, float const*, int)", false, kNoRule.data()},
    {"void kernelPointwiseApply2<ThresholdUpdateOutput<at::Half>, at::Half, at::Half, unsigned int, 1, 1>"
     "(OffsetInfo<ThresholdUpdateOutput<at::Half>, at::Half, unsigned int>, OffsetInfo<at::Half, at::Half, 1>, "
     "at::Half, at::Half)", false, kNoRule.data()},  // NVIDIA/apex#666
    {"ncclDevKernel_AllReduce_Sum_bf16", false, kNoRule.data()},
    {"triton_poi_fused_cat_3", false, kNoRule.data()},
    // Attention kernels without MMA: FlashAttention-2's backward helpers, memory-efficient
    // attention in fp32 before sm80 (SIMT): a T4 profile (sm75) and a V100 table (no suffix).
    {"flash_bwd_convert_dq_kernel", false, "flash-attention-helper"},
    {"flash_bwd_dot_do_o_kernel", false, "flash-attention-helper"},
    {"void flash::flash_fwd_splitkv_combine_kernel<Flash_fwd_kernel_traits<(int)128, (int)64, (int)128, (int)4, (bool)0, "
     "(bool)0, cutlass::bfloat16_t", false, "flash-attention-helper"},
    {"fmha_cutlassF_f32_aligned_64x64_rf_sm75", false, "mem-efficient-attention-cuda-core"},
    {"fmha_cutlassB_f32_aligned_64x64_k64", false, "mem-efficient-attention-cuda-core"},
};
// clang-format on

void expect_verdicts(const SeenKernel* begin, const SeenKernel* end) {
  for (const auto* kernel = begin; kernel != end; ++kernel) {
    const auto verdict = classify_kernel(kernel->name);
    EXPECT_EQ(verdict.tensor_core, kernel->tensor_core) << kernel->name << " (decided by " << verdict.rule << ")";
    EXPECT_EQ(verdict.rule, kernel->rule) << kernel->name;
  }
}

TEST(KernelClassifier, TensorCoreKernelsSeenInProfilesAreRecognised) {
  expect_verdicts(std::begin(kTensorCoreKernels), std::end(kTensorCoreKernels));
}

TEST(KernelClassifier, CudaCoreKernelsSeenInProfilesAreNotCounted) {
  expect_verdicts(std::begin(kCudaCoreKernels), std::end(kCudaCoreKernels));
}

TEST(KernelClassifier, TheTableCoversEveryArchitectureAndBothVerdicts) {
  EXPECT_GE(std::size(kTensorCoreKernels) + std::size(kCudaCoreKernels), 40U);
  EXPECT_GE(std::size(kCudaCoreKernels), 15U);
}

TEST(KernelClassifier, InstructionTokensCountOnlyAsWholeTokens) {
  // "umma" inside "summary" and "imma" inside a word are not tensor instructions.
  EXPECT_FALSE(classify_kernel("void summary_stats_kernel<float>(float const*, int)").tensor_core);
  EXPECT_FALSE(classify_kernel("void at::native::dimmap_kernel(int)").tensor_core);
  EXPECT_TRUE(classify_kernel("gemm_bf16_wgmma_m64n128k16_kernel").tensor_core);
}

TEST(KernelClassifier, AnEmptyNameMatchesNoPattern) {
  const auto verdict = classify_kernel("");
  EXPECT_FALSE(verdict.tensor_core);
  EXPECT_EQ(verdict.rule, kNoRule);
}

}  // namespace
