// The rounds of a run that ran while the machine was in a slower state (derived_figures.h
// kSlowMachineFactor), found by the machine probe timed in every round.
#pragma once

#include <cstdint>
#include <vector>

#include "ampbench/reports/report.h"

namespace ampbench::reports::detail {

// Per round of `cell`: whether its probe took more than the cell's slow_machine_factor times the
// run's usual probe time. Empty when the cell is not estimated under the rule or has no probe times.
[[nodiscard]] std::vector<bool> slow_machine_rounds(const Report& report, const CellResult& cell);

// The rounds a cell's figures leave out: the slow ones, unless fewer than two rounds would remain
// (then every round counts, and the figure describes the slower state).
[[nodiscard]] std::vector<bool> rounds_left_out(const std::vector<bool>& slow);

}  // namespace ampbench::reports::detail
