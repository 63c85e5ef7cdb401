// Internal (used by run() and its tests): a workload's worker processes (replicates) joined into one cell per mode.
#pragma once

#include <vector>

#include "ampbench/reports/report.h"

namespace ampbench::harness::detail {

// `replicates[r]` holds the cells replicate r returned; replicate 0 ran every mode, later ones only
// the modes still standing. Per mode: the steps and rounds of every replicate in order (rounds
// renumbered, each tagged with its replicate), the largest peak of each memory meter, and the rest
// (losses, gradient norms, scaler, precision audit, tensor cores: the same steps from the same
// seed) from replicate 0. A mode that failed in any replicate is failed, with that replicate's
// error. The figures are then derived again (intervals over replicates).
[[nodiscard]] std::vector<reports::CellResult> join_replicates(
    const std::vector<std::vector<reports::CellResult>>& replicates);

// The modes of replicate 0's cells that succeeded: what a later replicate still runs.
[[nodiscard]] std::vector<std::string> modes_standing(const std::vector<reports::CellResult>& cells);

}  // namespace ampbench::harness::detail
