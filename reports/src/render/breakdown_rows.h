// The time breakdown of every profiled cell as table rows, shared by Markdown and HTML: one column
// per category any cell has (matrix products first, then casts, float32 ops, elementwise, the
// optimizer, the GradScaler, bookkeeping, unattributed), each "1.23 ms (45%)" of the profiled step.
#pragma once

#include <string>
#include <vector>

#include "ampbench/reports/report.h"
#include "render/table_data.h"

namespace ampbench::reports::detail {

struct BreakdownTable {
  Table table;  // workload | mode | profiled step | a share per category | unattributed | largest op
  // The cells whose profiled step took well over their timed step, and how to read their shares;
  // empty when none did.
  std::string profiling_cost_note;
};

// Empty rows when no cell has a breakdown.
[[nodiscard]] BreakdownTable breakdown_table(const Report& report);

}  // namespace ampbench::reports::detail
