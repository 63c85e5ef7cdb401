// A small, fully deterministic report for the tests of reading, writing and rendering: SimpleNet
// and SimpleCNN under FP32, FP16 and BF16 on the CPU, one cell that failed, one with a NaN loss
// and skipped steps; GEMM peaks for the three dtypes and each cell's fraction of its peak. Every
// cell that ran has a 16-step numerics pass (evaluations every 2 steps) whose eval loss is FP32's
// times 1 + offset after step 0: the floor 1%, simple_net fp16 0.5% ("within the noise floor"),
// simple_net bf16 5% ("diverged"), simple_cnn bf16 2% ("above the floor"). Its cost: simple_net
// 1.5 + 1.5 (floor) + 2.0 + 2.5 = 7.5 s, simple_cnn 3.0 + 3.0 + 5.6 = 11.6 s.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ampbench/reports/history_show.h"
#include "ampbench/reports/report.h"

namespace ampbench::testing {

// Step times spread evenly around `median_s` by +-spread (relative), `count` of them.
[[nodiscard]] std::vector<double> spread_samples(double median_s, double spread, int count);

// A cell with its throughput summary computed from spread_samples(median_s, 0.02, 30).
[[nodiscard]] reports::CellResult sample_cell(const char* workload, const char* mode, double median_s);

// A numerics pass as the sample report's: 16 steps, eval loss FP32's times 1 + relative_offset.
[[nodiscard]] reports::Numerics sample_numerics(double relative_offset, double wall_s);
// FP32's: offset 0, with a floor run at offset 1% ("data order reversed").
[[nodiscard]] reports::Numerics sample_fp32_numerics(double wall_s);
// Two modules ("encoder", whose output reaches 7.1e4, and "head") on 8 observed steps, in `dtype`;
// at a scale above 1 (FP16) two skipped steps that first turned non-finite in encoder's output.
[[nodiscard]] reports::LayerDiagnostics sample_layers(const std::string& dtype, double scale, double gradient_zero);

[[nodiscard]] reports::Report make_sample_report();

// A `history show` document, by hand: one testbed whose cell name needs escaping, two series of six
// runs each with a run in the host's other state; the step time per probe changes at run 5, the
// raw step time at run 2 (the machine's) and at run 5.
[[nodiscard]] reports::HistoryShow sample_history();

// The report as if cells[cell]'s every step had taken `factor` times as long, with every figure
// derived from the steps (its summary, the speedups) recomputed, as a run would have written them.
[[nodiscard]] reports::Report with_slower_steps(reports::Report report, std::size_t cell, double factor);

// A run of --ranks 2: simple_net under FP32, FP16 and BF16 on one rank and on two (c10d, Gloo), the
// 2-rank cells with their data parallel figures (two buckets, 84.5 kB per step, all-reduce 0.2 ms
// for FP32 and 0.15 ms for FP16); the 1-rank BF16 cell failed, so its 2-rank twin has no scaling
// efficiency.
[[nodiscard]] reports::Report make_data_parallel_report();

// An FP16 cell on cuda:0 as the runner fills one on an H100: device-event step times with their
// host times, caching-allocator memory, GradScaler telemetry, and tensor-core metrics from both
// CUPTI methods (GH100's metric set). Values are recorded-looking, not measured.
[[nodiscard]] reports::CellResult sample_gpu_cell();

// A GPU run with the GPU's state and energy: simple_net under FP32 and BF16 on cuda:0 (an NVIDIA
// H100 80GB HBM3, maximum SM clock 1980 MHz), interleaved in 5 rounds of 6 steps. Rounds 1 and 3
// ran throttled: round 1 with NVML's sw_power_cap, round 3 with the SM clock at 1200 MHz (below
// 75% of its maximum). Energy from NVML's counter: FP32 0.60 J per step, BF16 0.33 J (0.55x),
// each round's window its steps' time; the throttled rounds' BF16 steps and joules 1.5x. With
// `throttled_rounds` set, every round from the first ran throttled up to that many.
[[nodiscard]] reports::Report make_gpu_state_report(int throttled_rounds = -1);

// What reading `json` as a report file named r.json refuses, as the error says it; "(no error)"
// when it reads.
[[nodiscard]] std::string report_read_error(const nlohmann::json& json);

}  // namespace ampbench::testing
