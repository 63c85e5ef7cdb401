// A small, fully deterministic report for the tests of reading, writing and rendering: SimpleNet
// and SimpleCNN under FP32, FP16 and BF16 on the CPU, one AMP cell that diverged, one cell that
// failed, one with a NaN loss and skipped steps; GEMM peaks for the three dtypes and each cell's
// fraction of its peak.
#pragma once

#include <vector>

#include "ampbench/reports/report.h"

namespace ampbench::testing {

// Step times spread evenly around `median_s` by +-spread (relative), `count` of them.
[[nodiscard]] std::vector<double> spread_samples(double median_s, double spread, int count);

// A cell with its throughput summary computed from spread_samples(median_s, 0.02, 30).
[[nodiscard]] reports::CellResult sample_cell(const char* workload, const char* mode, double median_s);

[[nodiscard]] reports::Report make_sample_report();

// An FP16 cell on cuda:0 as the runner fills one on an H100: device-event step times with their
// host times, caching-allocator memory, GradScaler telemetry, and tensor-core metrics from both
// CUPTI methods (GH100's metric set). Values are recorded-looking, not measured.
[[nodiscard]] reports::CellResult sample_gpu_cell();

}  // namespace ampbench::testing
