#include "explain/explain_dominant_op.h"

#include <string>

#include "ampbench/reports/compare.h"
#include "render/format.h"

namespace ampbench::reports::detail {
namespace {

// The op's own time in a breakdown, every dtype's entries together (FP32's step runs it in float32,
// the AMP step may run it in two dtypes); 0 when it is not among the breakdown's top ops.
double op_seconds(const TimeBreakdown& breakdown, const std::string& op) {
  double total = 0.0;
  for (const auto& entry : breakdown.top_ops) {
    if (entry.op == op) total += entry.seconds_per_step;
  }
  return total;
}

// Where to look next: which kernel the op ran. On a CPU, LibTorch's convolutions and most matrix
// products run in oneDNN, which names its kernels when asked (docs/performance.md: float16's
// weight-gradient convolution in its reference implementation on a Xeon with avx512_fp16).
std::string next_step(const CellResult& cell) {
  if (cell.device == "cpu") {
    return " To see the kernel it runs: with ONEDNN_VERBOSE=1 oneDNN prints each convolution's and matrix "
           "product's implementation, and \"ref:any\" is its reference one, used where it has no optimized kernel "
           "for that dtype and CPU.";
  }
  return " Nsight Systems (--no-cupti, docs/gpu.md) names the kernels it launches.";
}

}  // namespace

void dominant_op_finding(const TimeBreakdown& amp, const TimeBreakdown& fp32, const CellResult& cell,
                         std::vector<Finding>& out) {
  if (amp.top_ops.empty()) return;
  const auto& top = amp.top_ops.front();
  const double share = top.seconds_per_step / amp.step_time_s;
  const double before_s = op_seconds(fp32, top.op);
  if (!(share >= kDominantOpShare) || !(before_s > 0.0) || top.seconds_per_step < kDominantOpGrowth * before_s) return;
  const double growth = top.seconds_per_step / before_s;
  const std::string dtype = top.dtype.empty() ? "" : " in " + top.dtype;
  out.push_back({"dominant-op",
                 key_of(cell).label(),
                 "One op takes most of this step: " + top.op + dtype + ", " + format_duration(top.seconds_per_step) +
                     " of the " + format_duration(amp.step_time_s) + " profiled step (" + format_share(share) + "), " +
                     format_ratio(growth) + " its " + format_duration(before_s) +
                     " in FP32's profiled step. Its speed in " + cell.settings.compute_dtype +
                     " decides this cell's speedup." + next_step(cell),
                 {{"op_seconds_per_step", top.seconds_per_step},
                  {"op_share", share},
                  {"fp32_op_seconds_per_step", before_s},
                  {"growth_vs_fp32", growth}}});
}

}  // namespace ampbench::reports::detail
