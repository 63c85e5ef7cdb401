// Private: the explain rules on the numerics pass's ranges per layer (explain.h, issue #34), each
// naming the module and the figure it rests on:
// - layer-overflow: a module's output reaches above float16's 65504 where it is not float16 (the
//   FP32 cell, or this cell's own float32/bfloat16 output): float16 overflows there, bfloat16 not;
// - layer-flush: a float16 cell's gradients of a module flushed to zero (at least
//   kFlushedShareWorthSaying), with what keeps the scale from lifting them: no scaler, or another
//   module already without headroom;
// - non-finite-origin: the steps that went bad (skipped by the scaler, or a non-finite loss) and
//   the module whose tensor turned non-finite first on them.
#pragma once

#include <vector>

#include "ampbench/reports/report.h"

namespace ampbench::reports::detail {

inline constexpr double kFlushedShareWorthSaying = 0.01;
// A scaled gradient with less headroom than this (in powers of two) leaves the scaler no room to grow.
inline constexpr double kNoHeadroom = 1.0;

// The findings of one cell (only float16 cells have any).
void layer_findings(const Report& report, const CellResult& cell, std::vector<Finding>& out);

}  // namespace ampbench::reports::detail
