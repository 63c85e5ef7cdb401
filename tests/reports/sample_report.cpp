#include "sample_report.h"

#include <limits>

#include "ampbench/reports/derived_figures.h"
#include "ampbench/reports/google_benchmark.h"
#include "ampbench/reports/report_json.h"
#include "ampbench/reports/roofline.h"
#include "ampbench/reports/stats.h"

namespace ampbench::testing {

using namespace ampbench::reports;

std::vector<double> spread_samples(double median_s, double spread, int count) {
  std::vector<double> samples;
  for (int i = 0; i < count; ++i) {
    // A deterministic zig-zag over [-spread, +spread].
    const double position = count == 1 ? 0.0 : -1.0 + 2.0 * ((i * 7) % count) / (count - 1);
    samples.push_back(median_s * (1.0 + spread * position));
  }
  return samples;
}

CellResult sample_cell(const char* workload, const char* mode, double median_s) {
  CellResult cell;
  cell.workload = workload;
  cell.mode = mode;
  cell.device = "cpu";
  cell.preset = "default";
  cell.settings.compute_dtype = std::string(mode) == "fp32"   ? "float32"
                                : std::string(mode) == "fp16" ? "float16"
                                                              : "bfloat16";
  cell.settings.autocast = std::string(mode) != "fp32";
  cell.settings.grad_scaler = std::string(mode) == "fp16";
  cell.settings.float32_matmul_precision = "highest";
  cell.warmup_steps = 2;
  cell.step_times_s = spread_samples(median_s, 0.02, 30);
  for (int i = 0; i < 32; ++i) cell.losses.push_back(1.0 / (1.0 + 0.1 * i));
  cell.throughput.step_time_s = summarize(cell.step_times_s);
  cell.throughput.samples_per_step = 64;
  cell.throughput.samples_per_s = 64.0 / cell.throughput.step_time_s.median;
  cell.throughput.flops_per_step = 1.5e9;
  cell.throughput.achieved_flops_per_s = 1.5e9 / cell.throughput.step_time_s.median;
  cell.throughput.stop_reasons = {{StopReason::kPrecisionReached, 3}};
  cell.memory.peak_tensor_bytes = 48 * 1024 * 1024;
  cell.memory.peak_rss_bytes = 300 * 1024 * 1024;
  cell.tensor_cores.reason = "no GPU: tensor cores are measured on CUDA devices only";
  return cell;
}

CellResult sample_gpu_cell() {
  CellResult cell = sample_cell("simple_cnn", "fp16", 2.1e-3);
  cell.device = "cuda:0";
  cell.preset = "large";
  cell.host_step_times_s = spread_samples(0.4e-3, 0.05, 30);
  cell.memory.peak_tensor_bytes = 3LL << 30;
  cell.memory.cuda_peak_reserved_bytes = 4LL << 30;
  cell.memory.cuda_total_bytes = 80LL << 30;
  cell.memory.cuda_free_bytes_at_start = 79LL << 30;
  cell.scaler = ScalerTelemetry{std::vector<double>(32, 65536.0), {}};
  cell.tensor_cores.status = MeasurementStatus::kMeasured;
  cell.tensor_cores.reason = "range profiler on GH100, 2 replay pass(es)";
  cell.tensor_cores.metrics = {
      {"sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active", 41.5, "percent",
       "cupti-range-profiler"},
      {"sm__pipe_tensor_op_hmma_type_hmma_hgmma_qgmma_cycles_active.avg.pct_of_peak_sustained_active", 40.9, "percent",
       "cupti-range-profiler"},
      {"sm__inst_executed_pipe_tensor_op_gmma.sum", 1.2e6, "instructions", "cupti-range-profiler"},
      {"sm__inst_executed_pipe_tensor.sum", 3.4e6, "instructions", "cupti-range-profiler"},
      {"sm__cycles_elapsed.max", 5.5e6, "cycles", "cupti-range-profiler"},
      {"tensor_core_kernel_time_share", 0.62, "fraction", "cupti-activity-kernel-names"}};
  return cell;
}

Numerics sample_numerics(double relative_offset, double wall_s) {
  Numerics numerics;
  numerics.steps = 16;
  numerics.eval_batches = 4;
  for (std::int64_t step = 0; step <= 16; step += 2) {
    const double loss = 2.0 / (1.0 + 0.125 * static_cast<double>(step));
    // Evaluation 0 is before any step: every mode starts from the same weights.
    numerics.run.eval_loss.push_back(step == 0 ? loss : loss * (1.0 + relative_offset));
    numerics.eval_steps.push_back(step);
  }
  for (int step = 0; step < 16; ++step) numerics.run.train_loss.push_back(2.2 / (1.0 + 0.1 * step));
  numerics.run.wall_s = wall_s;
  return numerics;
}

LayerDiagnostics sample_layers(const std::string& dtype, double scale, double gradient_zero) {
  LayerDiagnostics layers;
  layers.steps = {0, 2, 4, 6, 8, 10, 12, 14};
  layers.scales.assign(layers.steps.size(), scale);
  for (const char* module : {"encoder", "head"}) {
    LayerRanges layer{module, {}};
    for (std::size_t i = 0; i < layers.steps.size(); ++i) {
      const bool encoder = std::string(module) == "encoder";
      TensorRange output{dtype, 4096, encoder ? 7.1e4 : 3.5, encoder ? 0.002 : 0.0, 0.0, 0.0, 0.0, 0.0};
      TensorRange gradient{dtype, 4096, 2.5e-6 * scale * (encoder ? 1.0 : 8.0), 0.0, 0.9, 0.0, gradient_zero, 0.0};
      if (dtype == "float16" && encoder) output = {dtype, 4096, 65504.0, 0.0, 0.0, 0.0, 0.0, 0.002};
      if (dtype != "float16") gradient.flushed_in_fp16 = 0.05;
      layer.steps.push_back({output, gradient});
    }
    layers.layers.push_back(std::move(layer));
  }
  if (scale > 1.0) {
    layers.bad_steps = 2;
    layers.non_finite_origins = {{3, "encoder", "output"}, {4, "encoder", "output"}};
  }
  return layers;
}

Numerics sample_fp32_numerics(double wall_s) {
  Numerics numerics = sample_numerics(0.0, wall_s);
  numerics.floor = sample_numerics(0.01, wall_s).run;
  numerics.floor_perturbation = "data order reversed";
  return numerics;
}

namespace {

// SimpleNet does a tenth of SimpleCNN's work per step, so the fractions of peak vary.
void set_flops_per_step(CellResult& cell, double flops) {
  cell.throughput.flops_per_step = flops;
  cell.throughput.achieved_flops_per_s = flops / cell.throughput.step_time_s.median;
}

void add_amp_results(CellResult& cell, const CellResult& fp32) {
  cell.divergence = compute_divergence(*fp32.numerics, *cell.numerics);
  cell.speedup_vs_fp32 = median_ratio(fp32.step_times_s, cell.step_times_s);
  const double ratio =
      static_cast<double>(cell.memory.peak_tensor_bytes) / static_cast<double>(fp32.memory.peak_tensor_bytes);
  cell.memory_ratio_vs_fp32 = Ratio{ratio, ratio, ratio};
  cell.precision = PrecisionAudit{0.93,
                                  {{"aten::addmm", cell.settings.compute_dtype, cell.settings.compute_dtype, 96, 1.2e9},
                                   {"aten::mse_loss", "float32", "float32", 32, 1.0e4}}};
}

Report base_report() {
  Report report;
  report.environment.ampbench_version = "0.1.0";
  report.environment.git_revision = "0123456789ab";
  report.environment.timestamp_utc = "2025-01-02T03:04:05Z";
  report.environment.hostname = "testhost";
  report.environment.cpu_model = "Test CPU @ 2.00GHz";
  report.environment.cpu_capability = "AVX2";
  report.environment.threads = 2;
  report.environment.torch_version = "2.15.0";
  report.environment.torch_library = "/opt/venv/lib/python3.11/site-packages/torch/lib";
  report.environment.cupti_version = "13";
  report.environment.cuda_status = "unavailable: no CUDA device";
  report.environment.devices = {{"cpu", "Test CPU @ 2.00GHz", "", 8LL << 30, 2, ""}};
  report.environment.gemm_peaks = {{"cpu", "float32", MeasurementStatus::kMeasured, "", 2.0e11, 1024,
                                    "at::mm 1024x1024, best of 9 calls, 2 threads"},
                                   {"cpu", "float16", MeasurementStatus::kMeasured, "", 8.0e11, 1024,
                                    "at::mm 1024x1024, best of 31 calls, 2 threads"},
                                   {"cpu", "bfloat16", MeasurementStatus::kMeasured, "", 4.0e11, 1024,
                                    "at::mm 1024x1024, best of 17 calls, 2 threads"}};
  report.config = {{"simple_net", "simple_cnn"},
                   {"fp32", "fp16", "bf16"},
                   "cpu",
                   "default",
                   2,
                   10,
                   200,
                   0.02,
                   5.0,
                   7,
                   2,
                   std::nullopt,
                   true};
  report.config.numerics_steps = 16;
  return report;
}

// The 2-rank twin of a one-rank cell: steps around median_s with all-reduces around allreduce_s,
// and its scaling efficiency against `one_rank` unless that failed.
CellResult two_rank_cell(const CellResult& one_rank, double median_s, double allreduce_s) {
  CellResult cell = sample_cell(one_rank.workload.c_str(), one_rank.mode.c_str(), median_s);
  cell.ranks = 2;
  DataParallel parallel;
  parallel.backend = "gloo";
  parallel.grad_compression = GradCompression::kNone;
  parallel.gradient_sync = "c10d::Reducer, 2 buckets (cap 25 MiB)";
  parallel.buckets = 2;
  parallel.allreduce_times_s = spread_samples(allreduce_s, 0.05, static_cast<int>(cell.step_times_s.size()));
  parallel.allreduce_time_s = summarize(parallel.allreduce_times_s);
  parallel.allreduce_bytes_per_step = 84'484.0;
  parallel.rank_median_step_time_s = {median_s, median_s * 0.98};
  if (one_rank.status == CellStatus::kOk)
    parallel.scaling_efficiency = median_ratio(one_rank.step_times_s, cell.step_times_s);
  cell.data_parallel = parallel;
  return cell;
}

}  // namespace

namespace {

GpuRoundState gpu_round(double sm_clock_mhz, std::vector<std::string> reasons) {
  GpuRoundState round;
  round.sm_clock_mhz = sm_clock_mhz;
  round.memory_clock_mhz = 2619.0;
  round.power_w = 540.0;
  round.temperature_c = 61.0;
  round.reasons = std::move(reasons);
  if (round.reasons.size() > 1) round.violation_s = {{"power", 0.004}};
  return round;
}

}  // namespace

Report make_gpu_state_report(int throttled_rounds) {
  Report report = make_sample_report();
  report.cells.clear();
  report.explanation.clear();
  report.environment.gemm_peaks.clear();
  report.environment.devices = {report.environment.devices.front(),
                                {"cuda:0", "NVIDIA H100 80GB HBM3", "9.0", 80LL << 30, 132, "Default",
                                 GpuClockRecord{true, 1980.0, 2619.0, 1980.0, 1980.0, 700.0, 700.0}}};
  report.environment.energy_meter =
      EnergyMeterRecord{"cuda:0", MeasurementStatus::kMeasured, "NVML total energy counter", ""};
  std::vector<bool> throttled = {false, true, false, true, false};
  if (throttled_rounds >= 0) {
    for (int round = 0; round < 5; ++round) throttled[round] = round < throttled_rounds;
  }
  for (const auto* mode : {"fp32", "bf16"}) {
    auto cell = sample_cell("simple_net", mode, std::string(mode) == "fp32" ? 2e-3 : 1e-3);
    cell.device = "cuda:0";
    cell.preset = "gpu";
    const double joules = std::string(mode) == "fp32" ? 0.60 : 0.33;
    Rounds rounds;
    rounds.interleaved_modes = {"fp32", "bf16"};
    rounds.steps_per_round = 6;
    rounds.untimed_steps_per_block = 2;
    rounds.probe = kGpuMatmulProbe;
    DeviceRounds device;
    device.max_sm_clock_mhz = 1980.0;
    Energy energy;
    energy.meter = "NVML total energy counter";
    energy.counter_update_s = 0.1;
    for (std::size_t round = 0; round < 5; ++round) {
      const double slower = throttled[round] && std::string(mode) == "bf16" ? 1.5 : 1.0;
      double window = 0.0;
      for (std::size_t step = 6 * round; step < 6 * round + 6; ++step) {
        rounds.step_round.push_back(static_cast<std::int64_t>(round));
        cell.step_times_s[step] *= slower;
        window += cell.step_times_s[step];
      }
      rounds.step_time_s.push_back(0.0);
      rounds.probe_s.push_back(1e-3 * (1.0 + 1e-3 * static_cast<double>(round)));
      rounds.round_replicate.push_back(0);
      // Joules per step jitter by round so that the interval has a width.
      energy.round_joules.push_back(6.0 * joules * slower * (1.0 + 0.01 * static_cast<double>(round % 2)));
      energy.round_window_s.push_back(window);
      const bool clock_low = throttled[round] && round % 2 == 1 && throttled_rounds < 0 && round == 3;
      device.rounds.push_back(!throttled[round] ? gpu_round(1980.0, {"applications_clocks_setting"})
                              : clock_low       ? gpu_round(1200.0, {"applications_clocks_setting"})
                                                : gpu_round(1650.0, {"applications_clocks_setting", "sw_power_cap"}));
    }
    rounds.slow_machine_factor = kSlowMachineFactor;
    rounds.device = device;
    cell.rounds = rounds;
    cell.energy = energy;
    derive_step_figures(cell);
    report.cells.push_back(cell);
  }
  relate_to_fp32(report);
  return report;
}

Report make_data_parallel_report() {
  Report report = base_report();
  report.config.workloads = {"simple_net"};
  report.config.ranks = 2;
  const CellResult fp32 = sample_cell("simple_net", "fp32", 1.25e-3);
  const CellResult fp16 = sample_cell("simple_net", "fp16", 4.1e-3);
  CellResult bf16 = sample_cell("simple_net", "bf16", 0.9e-3);
  bf16.status = CellStatus::kFailed;
  bf16.error = "the cell's process was killed by signal 9 (SIGKILL)";
  CellResult fp32_two = two_rank_cell(fp32, 1.6e-3, 0.2e-3);
  CellResult fp16_two = two_rank_cell(fp16, 4.6e-3, 0.15e-3);
  fp16_two.speedup_vs_fp32 = median_ratio(fp32_two.step_times_s, fp16_two.step_times_s);
  report.cells = {fp32, fp16, bf16, fp32_two, fp16_two, two_rank_cell(bf16, 1.1e-3, 0.18e-3)};
  return report;
}

Report make_sample_report() {
  Report report = base_report();
  CellResult net_fp32 = sample_cell("simple_net", "fp32", 1.25e-3);
  set_flops_per_step(net_fp32, 1.5e8);
  net_fp32.numerics = sample_fp32_numerics(1.5);
  net_fp32.numerics->run.layers = sample_layers("float32", 1.0, 0.1);
  CellResult net_fp16 = sample_cell("simple_net", "fp16", 4.1e-3);
  set_flops_per_step(net_fp16, 1.5e8);
  net_fp16.memory.peak_tensor_bytes = 40 * 1024 * 1024;
  net_fp16.scaler = ScalerTelemetry{std::vector<double>(32, 65536.0), {3, 4}};
  net_fp16.scaler->scale[3] = 32768.0;
  net_fp16.scaler->scale[4] = std::numeric_limits<double>::quiet_NaN();
  net_fp16.losses[4] = std::numeric_limits<double>::quiet_NaN();
  net_fp16.numerics = sample_numerics(0.005, 2.0);
  net_fp16.numerics->run.layers = sample_layers("float16", 65536.0, 0.3);
  add_amp_results(net_fp16, net_fp32);
  CellResult net_bf16 = sample_cell("simple_net", "bf16", 0.9e-3);
  set_flops_per_step(net_bf16, 1.5e8);
  for (std::size_t i = 0; i < net_bf16.losses.size(); ++i) net_bf16.losses[i] *= 1.2 + (i % 2 == 0 ? 0.01 : -0.01);
  net_bf16.numerics = sample_numerics(0.05, 2.5);
  net_bf16.numerics->run.layers = sample_layers("bfloat16", 1.0, 0.1);
  add_amp_results(net_bf16, net_fp32);

  CellResult cnn_fp32 = sample_cell("simple_cnn", "fp32", 0.125);
  cnn_fp32.numerics = sample_fp32_numerics(3.0);
  CellResult cnn_bf16 = sample_cell("simple_cnn", "bf16", 2.5);
  cnn_bf16.numerics = sample_numerics(0.02, 5.6);
  add_amp_results(cnn_bf16, cnn_fp32);
  CellResult cnn_fp16;
  cnn_fp16.workload = "simple_cnn";
  cnn_fp16.mode = "fp16";
  cnn_fp16.device = "cpu";
  cnn_fp16.preset = "default";
  cnn_fp16.status = CellStatus::kFailed;
  cnn_fp16.error =
      "the cell's process was killed by signal 9 (SIGKILL): out of memory? peak RSS exceeded the limit of the "
      "container";
  // The allocator the workers ran under, and the faults two cells took: SimpleNet's a few per step,
  // SimpleCNN FP32's enough to cost a share of its step (explain's page-faults finding).
  report.config.allocator = AllocatorPolicy::kGlibc;
  report.environment.allocator =
      AllocatorRecord{"glibc", "/lib/x86_64-linux-gnu/libc.so.6", "glibc 2.36", "glibc's defaults", 1.2e-6};
  net_fp32.page_faults = PageFaults{std::vector<std::int64_t>(net_fp32.step_times_s.size(), 12),
                                    std::vector<std::int64_t>(net_fp32.step_times_s.size(), 0)};
  cnn_fp32.page_faults = PageFaults{std::vector<std::int64_t>(cnn_fp32.step_times_s.size(), 30000),
                                    std::vector<std::int64_t>(cnn_fp32.step_times_s.size(), 1)};
  report.reruns = {{"simple_cnn", 1, 0, cnn_fp16.error, {"fp32", "fp16", "bf16"}, {"fp32", "fp16", "bf16"}}};
  report.cells = {net_fp32, net_fp16, net_bf16, cnn_fp32, cnn_fp16, cnn_bf16};
  fill_fractions_of_peak(report);
  return report;
}

Report with_slower_steps(Report report, std::size_t cell, double factor) {
  for (double& time : report.cells.at(cell).step_times_s) time *= factor;
  derive_step_figures(report.cells[cell]);
  relate_to_fp32(report);
  fill_fractions_of_peak(report);
  return report;
}

std::string report_read_error(const nlohmann::json& json) {
  try {
    (void)reports::parse_report_or_google_benchmark_text(json.dump(), "r.json");
  } catch (const reports::ReportError& error) {
    return error.what();
  }
  return "(no error)";
}

reports::HistoryShow sample_history() {
  using reports::HistoryChange;
  using reports::HistorySeries;
  using reports::SeriesUnit;
  // `other_host_state`: the index of a run the host spent in another state, if any.
  const auto runs = [](const std::vector<double>& values, std::size_t other_host_state) {
    std::vector<reports::HistoryRun> out;
    for (std::size_t i = 0; i < values.size(); ++i) {
      const auto run = static_cast<std::int64_t>(i + 1);
      out.push_back({run, "c" + std::to_string(run), "main", "2026-11-26T05:00:00Z", values[i], 0.98 * values[i],
                     1.02 * values[i], i == other_host_state});
    }
    return out;
  };
  HistorySeries per_probe{"net<1>/bf16/cpu/default",
                          "step_time_per_probe",
                          SeriesUnit::kPlain,
                          true,
                          runs({1.0, 1.01, 1.3, 0.99, 1.08, 1.08}, 2),
                          {},
                          1,
                          std::nullopt,  // one run since its change point: too few to say
                          10};
  per_probe.change_points.push_back(HistoryChange{5, 4, 6, 0.08, 1e-5, 1.0, 1.08, std::nullopt, "c4", "c5"});
  HistorySeries step_time{"net<1>/bf16/cpu/default",
                          "step_time_s",
                          SeriesUnit::kSeconds,
                          true,
                          runs({2e-3, 1.8e-3, 2.6e-3, 1.78e-3, 1.92e-3, 1.92e-3}, 2),
                          {},
                          1,
                          0.123,
                          10};
  // The host got faster at run 2 (the probe with it), spent run 3 in its other state, and the code
  // got slower at run 5.
  step_time.change_points.push_back(
      HistoryChange{2, 1, 6, -0.105, 1e-4, 2e-3, 1.79e-3, reports::MachineAttribution{0.005, 0.62}, "c1", "c2"});
  step_time.change_points.push_back(HistoryChange{5, 4, 6, 0.08, 1e-5, 1.78e-3, 1.92e-3, std::nullopt, "c4", "c5"});
  const reports::Testbed testbed{
      "cpu-test-0123abcd", "0123abcd0123abcd", {{"cpu_model", "Test <CPU>"}, {"threads", "2"}}};
  return {{reports::HistoryTestbed{testbed, 6, {per_probe, step_time}}}};
}

}  // namespace ampbench::testing
