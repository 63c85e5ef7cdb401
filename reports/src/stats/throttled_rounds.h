// The rounds of a GPU cell that ran throttled (device_state.h), and what throttled them.
#pragma once

#include <string>
#include <vector>

#include "ampbench/reports/report.h"

namespace ampbench::reports::detail {

// Per round of `cell`: whether the throttle rule marks it. Empty when the cell has no GPU state.
[[nodiscard]] std::vector<bool> throttled_rounds(const CellResult& cell);

// The causes behind a cell's throttled rounds, the most frequent first (ties in name order).
[[nodiscard]] std::vector<std::string> throttle_causes_of(const CellResult& cell);

}  // namespace ampbench::reports::detail
