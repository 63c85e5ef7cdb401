// Why AMP did or did not pay, cell by cell, from what a report measured: each finding a sentence
// with the figures it rests on. Findings never claim more than the evidence: where a figure is
// missing (no profiled breakdown, no GEMM peak, an older report) a finding says what is missing
// instead of guessing. The rules (each fires on its evidence and not without it):
// - native-gemm / no-native-gemm / gemm-like-float32: the cell's dtype's at::mm speed against
//   float32's on its device (the interleaved rounds' interval above 1, below it, or holding it;
//   older reports: the two peaks), with the ISA flags (CPU) or compute capability (CUDA) that
//   explain it;
// - casts-and-float32-ops: the share of the AMP step spent in casts and in ops autocast keeps in
//   float32, from the profiled breakdown;
// - amdahl-ceiling: FP32's share of time in matrix products and convolutions, times how much
//   faster (or slower) they ran in the AMP cell, gives the best speedup this model can get; it is
//   compared with the measured speedup, and the other categories' change names the gap;
// - skipped-steps / scale-collapse: the GradScaler's telemetry;
// - tf32-baseline: the FP32 cell already used TF32 (CUDA);
// - host-bound: a CUDA cell whose host time per step is close to its step time;
// - graph-host-cost: an eager AMP cell beside its graphed twin (--graphs both): the eager step less
//   the graphed one is what the host's issuing costs, and the graphed speedup over FP32 beside it;
// - mfu / mfu-unknown: a CUDA cell's model FLOP/s over its chip's datasheet dense peak for its
//   dtype (roofline.h), or why the chip has none;
// - unaligned-shapes: a CUDA cell whose low-precision matrix products spend more than 5% of their
//   time in ops with dimensions that are not multiples of 8 (tensor cores cannot take them);
// - page-faults: any cell whose minor page faults per step, at the fault cost the run measured,
//   reach 3% of its step (explain_page_faults.h);
// - slow-partner: any cell whose workers stopped at the time cap with few rounds because another
//   mode in the same rounds took most of each round (explain_slow_partner.h);
// - timed-apart: a cell the harness timed in rounds of its own because it was far slower than the
//   other modes of its workload (explain_slow_partner.h);
// - layer-overflow, layer-flush, non-finite-origin: a float16 cell's numerics pass, per module: an
//   output float16 cannot hold, gradients it flushed to zero, and where the steps that went bad
//   first turned non-finite (explain_layers.h);
// - unavailable: an AMP cell the rules above could say nothing about, and why.
#pragma once

#include <string>
#include <vector>

#include "ampbench/reports/report.h"

namespace ampbench::reports {

[[nodiscard]] std::vector<Finding> explain(const Report& report);

// The findings of cells whose label starts with `cell_prefix` ("transformer/bf16"); all when empty.
[[nodiscard]] std::vector<Finding> findings_for(const std::vector<Finding>& findings, const std::string& cell_prefix);

// "Why" as text lines (cell, then each sentence) and as a Markdown section; empty without findings.
[[nodiscard]] std::string render_why_text(const std::vector<Finding>& findings);
[[nodiscard]] std::string render_why_markdown(const std::vector<Finding>& findings);

}  // namespace ampbench::reports
