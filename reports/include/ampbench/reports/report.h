// The report model: what one `ampbench run` measured, cell by cell. This is the stable contract
// between the harness (which fills it), the JSON file (schema "ampbench.report/2") and every
// reader (compare, check, the renderers). Raw per-step samples are kept so that any statistic can
// be recomputed from the file alone.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ampbench/reports/cell_status.h"
#include "ampbench/reports/device_state.h"
#include "ampbench/reports/divergence_verdict.h"
#include "ampbench/reports/environment.h"
#include "ampbench/reports/grad_compression.h"
#include "ampbench/reports/op_category.h"
#include "ampbench/reports/ratio.h"
#include "ampbench/reports/run_config.h"
#include "ampbench/reports/stop_reason.h"

namespace ampbench::reports {

inline constexpr const char* kReportSchema = "ampbench.report/2";

// The mode every other is measured against: float32 throughout, TF32 off.
inline constexpr const char* kReferenceMode = "fp32";
// Version 1 (before ranks): read as one-rank cells of a one-rank run.
inline constexpr const char* kReportSchemaV1 = "ampbench.report/1";

// The machine probe on a GPU (Rounds::probe); on a CPU it was this product at 256x256 until the
// probe was named (the reader fills that name in for older reports).
inline constexpr const char* kGpuMatmulProbe = "float32 at::mm 2048x2048";
inline constexpr const char* kCpuMatmulProbe = "float32 at::mm 256x256";

// A median with its distribution-free 95% confidence interval, plus the spread of the samples.
struct SampleSummary {
  std::int64_t count = 0;
  double median = 0.0;
  double ci_low = 0.0;  // 95% CI of the median (order statistics; see stats.h)
  double ci_high = 0.0;
  double p10 = 0.0;
  double p90 = 0.0;
  double mean = 0.0;
  double stddev = 0.0;
  // (ci_high - ci_low) / 2 / median: the precision the run achieved.
  double relative_ci_half_width = 0.0;
};

// The settings that make a mode what it is, recorded so a reader never has to guess.
struct ModeSettings {
  std::string compute_dtype;  // "float32", "float16", "bfloat16"
  bool autocast = false;
  bool grad_scaler = false;
  bool tf32_matmul = false;              // torch.backends.cuda.matmul.allow_tf32 equivalent
  bool tf32_cudnn = false;               // cuDNN convolutions allowed to use TF32
  std::string float32_matmul_precision;  // "highest", "high" or "medium"
};

// Where a cell's FLOPs per step came from.
enum class FlopSource {
  kWorkload,  // stated by the workload ("workload" in report.json)
  kCounted,   // 3x one forward's matrix product, convolution and attention FLOPs, from amp's op counters
};
inline constexpr std::array<FlopSource, 2> kFlopSources{FlopSource::kWorkload, FlopSource::kCounted};
[[nodiscard]] std::string_view to_string(FlopSource source);  // "workload", "counted"

struct Throughput {
  SampleSummary step_time_s;  // over the timed steps only
  std::int64_t samples_per_step = 0;
  std::int64_t tokens_per_step = 0;  // 0 when the workload has no tokens
  double samples_per_s = 0.0;        // samples_per_step / median step time
  double tokens_per_s = 0.0;
  double flops_per_step = 0.0;  // forward + backward, from the workload's shapes
  // Where flops_per_step came from; absent in older reports.
  std::optional<FlopSource> flops_source;
  double achieved_flops_per_s = 0.0;
  // Achieved FLOP/s over the measured GEMM peak for the compute dtype; absent when no peak was
  // measured.
  std::optional<double> fraction_of_peak;
  // Model FLOPs utilisation: achieved FLOP/s over the chip's datasheet dense peak for the same
  // dtype (roofline.h); absent on a CPU, on a chip the table does not know, and in older reports.
  std::optional<double> mfu;
  StopReasonCounts stop_reasons;  // how many of the cell's workers stopped for each reason
};

struct Memory {
  std::int64_t peak_tensor_bytes = 0;  // CPU: counting allocator; CUDA: caching allocator peak allocated
  std::int64_t peak_rss_bytes = 0;     // the cell's process
  std::optional<std::int64_t> cuda_peak_reserved_bytes;
  std::optional<std::int64_t> cuda_total_bytes;
  std::optional<std::int64_t> cuda_free_bytes_at_start;
};

// GradScaler telemetry: the scale used at every step (warm-up included) and the steps skipped.
struct ScalerTelemetry {
  std::vector<double> scale;
  std::vector<std::int64_t> skipped_steps;  // 0-based indices into the cell's steps
};

struct OpAudit {
  std::string op;
  std::string input_dtype;
  std::string output_dtype;
  std::int64_t calls = 0;
  double flops = 0.0;
};

// What share of the forward FLOPs ran in low precision, and the dtypes per op (from amp's counters).
struct PrecisionAudit {
  double low_precision_flop_share = 0.0;
  std::vector<OpAudit> ops;
};

struct TensorCoreMetric {
  std::string name;  // e.g. "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active"
  double value = 0.0;
  std::string unit;    // "percent", "instructions", "cycles", "fraction"
  std::string method;  // "cupti-range-profiler" or "cupti-activity-kernel-names"
};

struct TensorCoreUtilization {
  MeasurementStatus status = MeasurementStatus::kUnavailable;
  std::string reason;  // why unavailable, and how to enable it
  std::vector<TensorCoreMetric> metrics;
};

// How one tensor's values sit against float16's range: shares of its elements, each counted on
// the values as the mode produced them (in their own dtype), compared in float32. A float16 tensor
// cannot hold values above 65504 or below its smallest subnormal, so there those shares read 0 and
// what overflowed counts as non-finite, what flushed as zero (reports compare its zeros with FP32's).
struct TensorRange {
  std::string dtype;  // "float16", "bfloat16", "float32": as the mode produced it
  std::int64_t elements = 0;
  double amax = 0.0;             // the largest finite |value|
  double above_fp16_max = 0.0;   // finite |value| > 65504: float16 would overflow them to inf
  double fp16_subnormal = 0.0;   // non-zero finite |value| < 2^-14: float16 keeps them with fewer bits, or none
  double flushed_in_fp16 = 0.0;  // non-zero |value| <= 2^-25: float16 would round them to zero
  double zero = 0.0;             // exactly zero
  double non_finite = 0.0;       // inf or NaN
};

// One module's tensors on one observed step: its forward output and the gradient that reached it
// in backward (scaled by the loss scale, as the GradScaler sees it). Either is absent when the step
// produced none (e.g. an output that did not require grad).
struct LayerRangeStep {
  std::optional<TensorRange> output;
  std::optional<TensorRange> gradient;
};

struct LayerRanges {
  // The module's registered path ("encoder.0.linear1"), or kWholeModelLayer for parameters the
  // model's root module holds itself.
  std::string module;
  std::vector<LayerRangeStep> steps;  // one per LayerDiagnostics::steps
};
inline constexpr const char* kWholeModelLayer = "(model)";

// The first module whose forward output or gradient held inf or NaN on a step that went bad: a
// step the GradScaler skipped, or (without a scaler) the first step with a non-finite loss.
// `module` is empty when no module's tensor did (the loss itself, or a parameter-free op).
struct NonFiniteOrigin {
  std::int64_t step = 0;
  std::string module;
  std::string tensor;  // "output" or "gradient"
};

// Per-module range statistics of one mode's numerics run (issue #34). A module's "output" is what
// the ops that apply its own parameters return (for Linear, Conv, norms and embeddings: its forward
// output); modules without parameters of their own have no row. Observed steps are the training
// steps right after each evaluation; every step is checked for non-finite tensors.
struct LayerDiagnostics {
  std::vector<std::int64_t> steps;                  // training steps observed, 0-based
  std::vector<double> scales;                       // the loss scale each observed step ran with (1: none)
  std::vector<LayerRanges> layers;                  // in the order the forward first reached them
  std::int64_t bad_steps = 0;                       // steps skipped by the scaler (or non-finite, without one)
  std::vector<NonFiniteOrigin> non_finite_origins;  // the first kMaxNonFiniteOrigins bad steps
  std::string note;                                 // what the figures cannot say, e.g. no named submodules
};
inline constexpr std::size_t kMaxNonFiniteOrigins = 64;

// A GradScaler mode's start-up, found before its numerics pass: PyTorch's scale starts at 2^16 and
// backs off by skipping steps until the gradients fit. In a pass of tens of steps one such skip is
// a one-step lag that reads as divergence (SimpleNet's seed pass: 5% of the eval loss, 4.7x the
// floor on an H200), so the scale is tried on the pass's first batch from the initial weights, no
// update kept, halving after each overflow down to 1, and the pass starts from the first that fits.
struct ScaleCalibration {
  double initial_scale = 0.0;  // the GradScaler's default, 2^16
  std::int64_t skipped_tries = 0;
  bool settled = false;  // a try fitted; else the pass starts at initial_scale and skips as PyTorch's would
  // The pass's first scale: initial_scale halved once per overflowing try when a try fitted.
  [[nodiscard]] double start_scale() const {
    return settled ? std::ldexp(initial_scale, -static_cast<int>(skipped_tries)) : initial_scale;
  }
};

// One training run of the numerics pass (below).
struct NumericsRun {
  std::vector<double> train_loss;                     // every step's; null in JSON when non-finite
  std::vector<double> eval_loss;                      // at each of Numerics::eval_steps; null in JSON when non-finite
  double wall_s = 0.0;                                // training and evaluations
  std::optional<LayerDiagnostics> layers;             // absent in the floor run and in reports before #34
  std::optional<ScaleCalibration> scale_calibration;  // GradScaler modes; absent in reports before it
};

// The numerics pass, separate from timing: every mode of a workload trains the same fixed number
// of steps from the same initial weights on the same fresh batches (none of them the timed cells'
// batches), and every few steps the model is evaluated in float32 on held-out batches no mode
// trains on, so the eval loss measures the trained weights, not the mode's inference precision.
// The FP32 cell also carries the noise-floor run: the same pass with a change that should not
// matter, whose distance from FP32 is the scale AMP's distance is judged on.
struct Numerics {
  std::int64_t steps = 0;
  std::int64_t eval_batches = 0;         // held-out batches per evaluation
  std::vector<std::int64_t> eval_steps;  // steps trained before each evaluation: 0, ..., steps
  NumericsRun run;
  std::optional<NumericsRun> floor;  // FP32 cell only
  std::string floor_perturbation;    // what the floor run changed, e.g. "data order reversed"
  std::string error;                 // why the pass failed for this mode; empty when it ran
};

// How far an AMP cell's eval loss lands from FP32's in the numerics pass, on the scale of the
// noise floor (see stats.h compute_divergence for the definition).
struct Divergence {
  std::string reference_mode = kReferenceMode;
  std::int64_t steps = 0;  // numerics steps both trained
  // The evaluations the final figures average: the last quarter of the pass.
  std::int64_t final_evaluations = 0;
  // Mean |AMP - FP32| / FP32 eval loss over the final evaluations, and the same for the floor run.
  double final_relative_difference = 0.0;
  double final_floor = 0.0;
  double max_relative_difference = 0.0;  // over every evaluation
  // final_relative_difference / max(final_floor, kMinimumFloor), and the ratio beyond which the
  // cell "diverged".
  double ratio_to_floor = 0.0;
  double floor_multiple = 0.0;
  // Within the noise floor (ratio <= 1), above it (1 < ratio <= floor_multiple: not clearly beyond
  // what an irrelevant change does), diverged, or a non-finite loss.
  DivergenceVerdict verdict = DivergenceVerdict::kWithinFloor;
};

// An estimate over the interleaved rounds of a run with its 95% CI: what a rerun on this machine
// would see, since each round is a fresh draw of the machine's state (see stats.h).
struct RoundEstimate {
  std::int64_t rounds = 0;
  double value = 0.0;
  double ci_low = 0.0;
  double ci_high = 0.0;
  double relative_ci_half_width = 0.0;  // (ci_high - ci_low) / 2 / value
};

// The energy a cell's timed steps took, from a cumulative counter read before and after its timed
// steps in each round (on a GPU once the device finished them). Joules are the whole device's, or
// on a CPU the whole package's and its memory's: what else ran then is counted too.
struct Energy {
  std::string meter;                   // "NVML total energy counter", "RAPL package-0 + dram"
  double counter_update_s = 0.0;       // how often the counter moves at most: a window shorter reads coarsely
  std::vector<double> round_joules;    // per round: this cell's timed steps in it
  std::vector<double> round_window_s;  // per round: the time those joules were read over
  // Derived: per round its joules over its timed steps, estimated over rounds (or replicates) as the
  // step time is, and every round's joules over every round's window.
  RoundEstimate joules_per_step;
  double average_power_w = 0.0;
};

// How a cell was timed: the modes of one workload take turns in blocks of steps (each block's first
// steps untimed, the order rotating and reversing every cycle), one block of each mode and of the
// machine probe per round; every round has steps of every mode. The rounds
// come from several worker processes per workload (replicates), started at different times of the
// run, because a process's speed is partly its own (where its memory landed, what shared the core
// then): rounds of one process agree more with each other than with a rerun. Absent in reports
// from before rounds existed.
struct Rounds {
  std::vector<std::string> interleaved_modes;  // the modes timed in the same rounds, this one included
  std::int64_t steps_per_round = 0;
  // Untimed steps at the start of each of this mode's blocks (one on a CPU, two on a GPU:
  // harness interleaved_rounds.h). Absent in reports from before it: one.
  std::int64_t untimed_steps_per_block = 1;
  std::vector<std::int64_t> step_round;  // the round of each timed step (step_times_s order)
  std::vector<double> step_time_s;       // per round: the median of this cell's steps in it
  // Per round: the median time of the machine probe, a fixed piece of work timed in the same
  // rotation (`probe` names it), the machine's own speed at that moment; `check` divides by it to
  // tell drift from code changes, when both reports ran the same probe.
  std::vector<double> probe_s;
  std::string probe;
  // Per round: the replicate (worker process, 0-based) it ran in, non-decreasing. Empty in reports
  // from before replicates: every round in one process.
  std::vector<std::int64_t> round_replicate;
  // The rule this cell's speedup was estimated under (derived_figures.h kSlowMachineFactor): a
  // round whose probe took more than this many times the run's usual probe time ran while the
  // machine was in a slower state, and is left out of the speedup. Absent in reports from before
  // the rule: every round counts.
  std::optional<double> slow_machine_factor;
  // Derived (relate_to_fp32): how many of this cell's rounds the rule finds slow.
  std::int64_t slow_machine_rounds = 0;
  // A GPU's state in each round and the throttle rule (device_state.h); absent on a CPU, where NVML
  // could not be loaded, and in older reports.
  std::optional<DeviceRounds> device;
  // The geometric mean of step_time_s with its interval: over replicates when there are two or
  // more (stats.h replicate_means), else over rounds.
  RoundEstimate step_time;
};

// Where a cell's step time goes, from separate profiled steps after the timed ones (LibTorch's own
// profiler): the self time of every op on the training thread, by category, per step. The
// categories plus `unattributed_s` (time inside no recorded op: host code between ops) make the
// profiled step time.
struct TimeCategory {
  OpCategory category;  // matrix products by dtype, casts, kept in float32, ... (op_category.h)
  double seconds_per_step = 0.0;
};
// One op's own time per profiled step, by its name and the dtype of its first floating-point input
// (empty when the profiler recorded none): what a category's total does not say, which op it is.
struct OpTime {
  std::string op;     // LibTorch's name: "aten::convolution_backward"
  std::string dtype;  // "float16", "float32", ... or empty
  double seconds_per_step = 0.0;
};
struct TimeBreakdown {
  std::int64_t steps = 0;    // profiled steps, averaged
  double step_time_s = 0.0;  // wall time per profiled step
  std::vector<TimeCategory> categories;
  double unattributed_s = 0.0;
  std::string method;  // how it was measured, e.g. "LibTorch profiler, CPU ops of the training thread"
  // Per step, the time of low-precision matrix products whose dimensions are not multiples of 8
  // (tensor cores cannot take them), and the first few such ops with their input shapes.
  double unaligned_matmul_s = 0.0;
  std::vector<std::string> unaligned_matmul_ops;
  // The ops with the most time of their own per step, largest first (at most kTopOps; empty in
  // reports from before them).
  std::vector<OpTime> top_ops;
  static constexpr std::size_t kTopOps = 5;
};

// How a cell of several ranks kept its replicas in step (docs/distributed.md).
struct DataParallel {
  std::string backend;                                        // c10d's process group: "gloo" or "nccl"
  GradCompression grad_compression = GradCompression::kNone;  // the dtype the gradients cross in
  std::string gradient_sync;  // how, for people: "c10d::Reducer, 3 buckets (cap 25 MiB), fp16 hook"
  std::int64_t buckets = 0;
  // Per timed step, in step order: the longest of the ranks' all-reduce time (each rank's sum of
  // the durations c10d measured for that step's bucket all-reduces; they overlap the backward).
  std::vector<double> allreduce_times_s;
  SampleSummary allreduce_time_s;               // over allreduce_times_s
  double allreduce_bytes_per_step = 0.0;        // what each rank hands to all-reduce per step (after compression)
  std::vector<double> rank_median_step_time_s;  // each rank's own median step time, rank 0 first
  // Step time on one rank / on these ranks, the per-rank batch the same (weak scaling): 1 is
  // perfect, 0.5 means half of each added rank's work is lost. Absent when the one-rank cell failed.
  std::optional<Ratio> scaling_efficiency;
  // Whether every rank's GradScaler skipped exactly the same steps (a step is skipped everywhere or
  // nowhere); false fails the cell.
  bool inf_checks_agreed = true;
};

// The page faults the cell's worker process took during each timed step: getrusage around the step,
// read outside its timer, every thread of the process. A minor fault maps a page the process had
// handed back (the allocator's policy decides how often); a major one also reads from disk.
struct PageFaults {
  std::vector<std::int64_t> minor;  // per timed step, in step_times_s order
  std::vector<std::int64_t> major;
};

struct CellResult {
  std::string workload;
  std::string mode;
  std::string device;
  std::string preset;
  // The ranks it trained on: 1 for one process (every cell of older reports), N for data parallel.
  // A cell is named by workload, mode, device, preset and ranks.
  std::int64_t ranks = 1;
  CellStatus status = CellStatus::kOk;
  std::string error;  // why it failed
  ModeSettings settings;
  std::int64_t warmup_steps = 0;
  std::vector<double> step_times_s;       // every timed step, in order
  std::vector<double> host_step_times_s;  // CPU-side time per timed step (CUDA only; shows host overhead)
  std::vector<double> losses;             // every step, warm-up first; null in JSON when non-finite
  // The unscaled global gradient norm of every step, warm-up first (empty in older reports); null
  // in JSON when non-finite, which on a step the GradScaler did not skip means trouble.
  std::vector<double> grad_norms;
  Throughput throughput;
  Memory memory;
  std::optional<ScalerTelemetry> scaler;
  std::optional<PrecisionAudit> precision;
  TensorCoreUtilization tensor_cores;
  // The numerics pass (absent when it was turned off, in later replicates' cells and in reports
  // from before it existed) and, for AMP cells, its divergence from FP32.
  std::optional<Numerics> numerics;
  std::optional<Divergence> divergence;  // AMP cells, when FP32's numerics pass ran
  std::optional<Rounds> rounds;
  // FP32 / this: over paired rounds (the geometric mean of per-round ratios, t interval) when
  // both cells have rounds, else medians over steps with a bootstrap interval (older reports).
  std::optional<Ratio> speedup_vs_fp32;
  std::optional<Ratio> memory_ratio_vs_fp32;  // this peak / FP32 peak (no interval: one value each)
  std::optional<TimeBreakdown> breakdown;     // absent in later replicates, failed cells, older reports
  std::optional<DataParallel> data_parallel;  // cells of more than one rank
  std::optional<PageFaults> page_faults;      // absent in older reports; most of any rank per step on several
  // Absent where the run's energy meter was unavailable (Environment::energy_meter says why) and
  // in older reports; the ratio is this cell's joules per step over its reference's.
  std::optional<Energy> energy;
  std::optional<Ratio> energy_ratio_vs_fp32;
};

// A worker that died of a signal of its own (a crash, an out-of-memory kill) while timing a
// workload's modes together, and what ran in its place: the run is never silently rearranged.
struct WorkerRerun {
  std::string workload;
  std::int64_t ranks = 1;
  std::int64_t replicate = 0;            // which of the workload's worker processes (0-based)
  std::string reason;                    // how it ended: "cell process killed by signal 9 (Killed); ..."
  std::vector<std::string> modes;        // the modes it was timing together
  std::vector<std::string> rerun_modes;  // each ran again alone, in a worker of its own
};

// One reason a cell's speedup is what it is, with the figures it rests on (reports/explain.h).
struct Finding {
  std::string id;                                        // "no-native-gemm", "casts", "amdahl-ceiling", ...
  std::string cell;                                      // CellKey::label(): "workload/mode/device/preset[/ranks=N]"
  std::string sentence;                                  // the finding, with its figures, for people
  std::vector<std::pair<std::string, double>> evidence;  // the figures by name
};

struct Report {
  std::string schema = kReportSchema;
  Environment environment;
  RunConfig config;
  std::vector<CellResult> cells;
  std::vector<Finding> explanation;  // why AMP paid or not (reports/explain.h); empty in older reports
  std::vector<WorkerRerun> reruns;   // empty when every worker ended by itself (and in older reports)
};

// The reruns that replaced a worker timing this cell's workload on its ranks: its figures then mix
// modes timed together with modes timed alone.
[[nodiscard]] std::vector<const WorkerRerun*> reruns_of(const Report& report, const CellResult& cell);

}  // namespace ampbench::reports
