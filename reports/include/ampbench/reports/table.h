// The terminal table that ends `ampbench run` and that `ampbench report` prints: one line per
// cell with its step time and interval, speedup and memory against FP32, loss divergence and
// skipped steps; a failed cell shows its error instead.
#pragma once

#include <string>

#include "ampbench/reports/report.h"

namespace ampbench::reports {

// Width of the error text shown for a failed cell before it is cut with "…".
inline constexpr std::size_t kTableErrorWidth = 72;

// Aligned columns, ending in a newline; a note below when cells failed. UTF-8 ("µs", "…").
[[nodiscard]] std::string render_table(const Report& report);

}  // namespace ampbench::reports
