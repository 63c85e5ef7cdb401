// Measures the machine's GEMM peak per dtype on the device a run uses, once, before its cells:
// the roofline each cell's achieved FLOP/s is read against (reports/roofline.h), and each other
// dtype's speed against float32's, with its interval, from rounds that interleave the dtypes (what
// explain's GEMM findings read). Brief and adaptive: about a second on a CPU.
#pragma once

#include <string>
#include <vector>

#include "ampbench/reports/environment.h"

namespace ampbench::harness {

// at::mm throughput for float32, float16, bfloat16 and, on CUDA, tfloat32 (float32 under matmul
// precision "high", restored after) on `device` ("cpu" or "cuda:N", as the CLI resolves it).
// `threads` > 0 sets LibTorch's intra-op threads first, as the run's cells do. A dtype that cannot
// be measured is recorded as unavailable with the reason, never thrown: the run goes on.
[[nodiscard]] std::vector<reports::GemmPeak> measure_gemm_peaks(const std::string& device, int threads);

}  // namespace ampbench::harness
