// Private: the explain rule for page faults (explain.h): a cell whose worker paged memory in on
// every step, priced at the fault cost the run measured, when that is a measurable share of its step.
#pragma once

#include <vector>

#include "ampbench/reports/report.h"

namespace ampbench::reports::detail {

// Below this estimated share of the step, faults are within what reruns move a step by.
inline constexpr double kPageFaultShareWorthSaying = 0.03;

// One "page-faults" finding per cell (FP32 cells too: their faults bias the speedup) whose minor
// faults per timed step, times the report's measured cost of one fault, reach the share above.
void page_fault_findings(const Report& report, std::vector<Finding>& out);

}  // namespace ampbench::reports::detail
