// Private: the explain rules for energy (explain.h): what an AMP cell's step costs in joules
// against FP32's, and a finding when time and energy disagree (faster but no cheaper, or slower
// but cheaper), which a higher or lower power draw explains.
#pragma once

#include <vector>

#include "ampbench/reports/report.h"

namespace ampbench::reports::detail {

// "energy" for a cell with an energy ratio against its reference, and "energy-time-disagree"
// when the speedup's interval and the energy ratio's point different ways.
void energy_findings(const Report& report, const CellResult& cell, std::vector<Finding>& out);

}  // namespace ampbench::reports::detail
