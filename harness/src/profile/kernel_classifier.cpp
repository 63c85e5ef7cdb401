// The maintained pattern list behind classify_kernel. Libraries name their kernels after the
// instruction or op class they are built on, and that is what these patterns read. The list is
// ordered: the first rule that matches decides, so each CUDA-core family that shares a token with a
// tensor-core family comes before it. tests/harness/kernel_classifier_test.cpp holds real names
// seen in profiler output (Volta to Blackwell) and where each was seen; extend both together.
#include "profile/kernel_classifier.h"

#include <regex>
#include <vector>

namespace ampbench::harness {
namespace {

struct KernelRule {
  std::string_view name;
  bool tensor_core;
  const char* pattern;  // ECMAScript regex, searched anywhere in the name (mangled names keep identifiers)
};

// clang-format off
constexpr KernelRule kRules[] = {
    // --- CUDA-core kernels that carry a tensor-core family's token -----------------------------
    // cuBLAS/cuDNN xmma kernels doing FP32 math with FFMA (Ampere..Hopper FP32 GEMMs and
    // convolutions without TF32, e.g. sm80_xmma_gemm_f32f32_f32f32_f32_..._ffma_aligna4). The
    // second form catches names that a profiler table cut before the `_ffma` token.
    {"xmma-cuda-core-fp32", false, R"(_ffma|xmma_\w*f32f32_f32f32)"},
    // FlashAttention-2's backward pre/post-processing and split-KV combine kernels: elementwise
    // and reductions around the attention kernels, no MMA.
    {"flash-attention-helper", false, R"(flash_bwd_(convert_dq|dot_do_o)|flash_fwd_splitkv_combine)"},
    // PyTorch's memory-efficient attention (xFormers' CUTLASS kernels) uses the SIMT op class for
    // sm50 builds and for fp32 below sm80 (gemm_kernel_utils.h, DefaultGemmType); an fp32 name
    // without an sm80+ suffix cannot be shown to be TF32, so it counts as CUDA cores.
    {"mem-efficient-attention-cuda-core", false, R"(fmha_cutlass[FB]_(\w*_sm50|f32_(?!\w*_sm(8\d|9\d|1\d\d))))"},

    // --- Tensor-core kernels -----------------------------------------------------------------
    // Named after the MMA instruction shape: cuBLAS SASS GEMMs (volta_h884gemm, volta_fp16_s884gemm,
    // turing_h1688gemm, ampere_h16816gemm, ampere_bf16_s16816gemm, ampere_fp32_s1684tf32gemm),
    // cuDNN convolutions (volta_fp16_s884cudnn, turing_fp16_s1688cudnn), int8 (i8816, i16832),
    // FP64 DMMA (d884) and CUTLASS 2 library kernels (cutlass_80_tensorop_s16816gemm,
    // cutlass_80_wmma_tensorop_s161616gemm).
    {"mma-instruction-shape", true, R"(_[hsdi](884|1684|1688|8816|16816|16832|16864|161616))"},
    // NVIDIA's xmma GEMM/convolution kernels in cuBLAS(Lt), cuDNN and TensorRT, sm75 to sm100
    // (sm80_xmma_gemm_*_tensor16x8x16, sm90_xmma_gemm_*_hgmma64x128x16, sm80_xmma_fprop_implicit_gemm,
    // sm90_xmma_dgrad_implicit_gemm, TF32 as *_tf32f32_*, FP8 as sm89_xmma_gemm_e4m3*), once the
    // FFMA variants are excluded above.
    {"xmma", true, R"(xmma)"},
    // cuBLAS's Hopper and Blackwell GEMMs (nvjet_hsh_*, nvjet_tst_*, nvjet_sss_tf32_*, nvjet_sm90_*,
    // nvjet_sm100_*): warpgroup/tcgen05 MMA kernels. Plain FP32 GEMMs on Hopper still run the sm80
    // xmma FFMA kernels excluded above.
    {"cublas-nvjet", true, R"(nvjet_)"},
    // CUTLASS 2.x/3.x kernels of the TensorOp op class (cutlass_80_tensorop_*, cutlass_tensorop_*,
    // cutlass3x_sm90_tensorop_*, cutlass3x_sm100_tensorop_*, demangled cutlass::arch::OpClassTensorOp).
    {"cutlass-tensorop", true, R"([Tt]ensor[Oo]p)"},
    // The WMMA API: CUTLASS wmma kernels and cuDNN's generated attention
    // (cudnn_generated_fort_native_sdpa_sm80_flash_fprop_wmma_f16_*).
    {"wmma", true, R"(wmma)"},
    // Kernels that name their tensor instruction: Volta..Ampere SASS (hmma, imma, dmma), Hopper
    // warpgroup MMA (wgmma, hgmma, gmma), Blackwell tcgen05 (umma, utchmma). Not inside a word, so
    // that "summary" is not "umma".
    {"mma-instruction-name", true, R"((^|[^A-Za-z])(hmma|imma|dmma|wgmma|[hiqb]?gmma|umma|utc[hiqo]mma|tcgen05))"},
    // CUTLASS 3 / CuTe kernels, demangled or mangled: MMA atoms (SM80_16x8x16_F32F16F16F32_TN,
    // SM90_64x128x16_F32F16F16_SS, SM100_MMA_F16BF16_SS) and Hopper/Blackwell mainloops
    // (MainloopSm90TmaGmmaWarpSpecialized, MainloopSm100TmaUmmaWarpSpecialized).
    {"cute-mma-atom", true, R"(SM\d{2,3}_(\d+x\d+x\d+_|MMA_)|[GU]mma)"},
    // FlashAttention 2 (pytorch_flash::flash_fwd_kernel, flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel,
    // flash_fwd_splitkv_kernel: mma.sync, sm80+) and FlashAttention 3 (flash::FlashAttnFwdSm90: wgmma).
    {"flash-attention", true, R"(flash_(fwd|bwd)|FlashAttn)"},
    // PyTorch's memory-efficient attention: TensorOp for f16/bf16 (sm70+) and 3xTF32 for fp32 (sm80+).
    {"mem-efficient-attention", true, R"(fmha_cutlass[FB])"},
};
// clang-format on

struct CompiledRule {
  const KernelRule* rule;
  std::regex pattern;
};

const std::vector<CompiledRule>& compiled_rules() {
  static const std::vector<CompiledRule> rules = [] {
    std::vector<CompiledRule> compiled;
    for (const auto& rule : kRules) compiled.push_back({&rule, std::regex(rule.pattern, std::regex::optimize)});
    return compiled;
  }();
  return rules;
}

}  // namespace

KernelClassification classify_kernel(std::string_view kernel_name) {
  for (const auto& [rule, pattern] : compiled_rules()) {
    if (std::regex_search(kernel_name.begin(), kernel_name.end(), pattern)) return {rule->tensor_core, rule->name};
  }
  return {false, kNoRule};
}

}  // namespace ampbench::harness
