// Runs one cell in this process: builds the workload, warms up, times steps on pre-generated
// batches until the noise target or a cap is reached, and collects every meter into a CellResult.
// A cell that throws is returned as failed with its error; it never throws itself.
#pragma once

#include <cstdint>
#include <functional>

#include "ampbench/harness/cell.h"
#include "ampbench/reports/report.h"

namespace ampbench::harness {

struct CellProgress {
  std::int64_t step = 0;  // steps done, warm-up included
  std::int64_t timed_steps = 0;
  double timed_elapsed_s = 0.0;
  double time_cap_s = 0.0;
};
using ProgressSink = std::function<void(const CellProgress&)>;

[[nodiscard]] reports::CellResult run_cell(const CellSpec& spec, const ProgressSink& progress = {});

}  // namespace ampbench::harness
