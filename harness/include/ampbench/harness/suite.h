// Runs every cell of a run (workloads x modes on one device and preset), then relates each AMP
// cell to the FP32 cell of its workload (speedup with an interval, memory ratio, loss divergence)
// and every cell to the environment's GEMM peak for its dtype (fraction of peak).
#pragma once

#include <functional>
#include <string>

#include "ampbench/reports/report.h"

namespace ampbench::harness {

// Called with human-readable progress lines ("[2/9] simplecnn fp16 cpu: step 12 ...").
// `replace_previous` is true when the line updates the previous one (a terminal can overwrite it).
using ProgressPrinter = std::function<void(const std::string& line, bool replace_previous)>;

[[nodiscard]] reports::Report run_suite(const reports::RunConfig& config, reports::Environment environment,
                                        const ProgressPrinter& print = {});

// Fills speedup_vs_fp32, memory_ratio_vs_fp32 and divergence of every successful non-FP32 cell
// whose workload, device and preset have a successful FP32 cell. Exposed for tests.
void relate_to_fp32(reports::Report& report);

}  // namespace ampbench::harness
