// How each cell of several ranks kept its replicas in step, as table rows that the terminal table,
// Markdown and HTML share: c10d's backend and compression, the all-reduce's time, volume and share
// of the step, the scaling efficiency against the cell's one-rank twin, whether the ranks' inf
// checks agreed, and every rank's median step time.
#pragma once

#include <string>
#include <vector>

#include "ampbench/reports/report.h"
#include "render/table_data.h"

namespace ampbench::reports::detail {

// One row per cell with data_parallel; none without.
[[nodiscard]] Table data_parallel_table(const Report& report);

// What the columns mean, said under the table.
[[nodiscard]] std::string data_parallel_note();

}  // namespace ampbench::reports::detail
