// Private: the explain rule for one op that takes most of an AMP cell's step (explain.h): which op
// decides the cell, in which dtype, and how much longer it takes than in FP32's step.
#pragma once

#include <vector>

#include "ampbench/reports/report.h"

namespace ampbench::reports::detail {

// An op's own time must be at least this share of the profiled step, and at least this many times
// its time in FP32's profiled step, for the cell to be said to rest on it.
inline constexpr double kDominantOpShare = 0.5;
inline constexpr double kDominantOpGrowth = 2.0;

// One "dominant-op" finding for an AMP cell whose largest op (`amp`'s top_ops, the breakdown of
// `cell`) holds the share above and grew by the factor above against the same op in the FP32
// cell's breakdown (`fp32`).
void dominant_op_finding(const TimeBreakdown& amp, const TimeBreakdown& fp32, const CellResult& cell,
                         std::vector<Finding>& out);

}  // namespace ampbench::reports::detail
