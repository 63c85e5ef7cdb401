// The explain rules on synthetic reports: each finding fires on its evidence and not without it,
// says what is missing instead of guessing, and the Markdown "Why" section against a golden file.
#include "ampbench/reports/explain.h"

#include "ampbench/reports/derived_figures.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "golden.h"
#include "sample_report.h"

namespace {

using namespace ampbench::reports;
using ampbench::testing::sample_cell;

TimeBreakdown breakdown(double step, double matmul, const std::string& dtype, double casts, double kept) {
  TimeBreakdown out;
  out.steps = 3;
  out.step_time_s = step;
  out.categories = {{matmul_category(dtype), matmul},
                    {{OpFamily::kCasts, {}}, casts},
                    {{OpFamily::kKeptInFloat32, {}}, kept},
                    {{OpFamily::kElementwise, {}}, step - matmul - casts - kept}};
  out.method = "test";
  return out;
}

CellResult amp_cell(const char* mode, const char* dtype, double speedup) {
  auto cell = sample_cell("transformer", mode, 0.010 / speedup);
  cell.settings = {dtype, true, std::string(mode) == "fp16", false, false, "highest"};
  cell.speedup_vs_fp32 = Ratio{speedup, speedup * 0.95, speedup * 1.05};
  return cell;
}

// An AVX512-BF16 CPU without FP16: bf16 GEMM 2x float32, fp16 0.15x; FP32 spends 80% of its step
// in matrix products. bf16's run 2x faster (ceiling 1.67x, measured 1.6x: they agree); fp16's 8x
// slower (ceiling 0.29x) but measured 0.10x: casts and float32 ops grew.
Report cpu_report() {
  Report report;
  report.environment.cpu_flags = {"avx2", "fma", "avx512f", "avx512_bf16"};
  report.environment.gemm_peaks = {{"cpu", "float32", MeasurementStatus::kMeasured, "", 200e9, 1024, "m"},
                                   {"cpu", "bfloat16", MeasurementStatus::kMeasured, "", 400e9, 1024, "m"},
                                   {"cpu", "float16", MeasurementStatus::kMeasured, "", 30e9, 1024, "m"}};
  auto fp32 = sample_cell("transformer", "fp32", 0.010);
  fp32.breakdown = breakdown(0.010, 0.008, "float32", 0.0, 0.001);
  auto bf16 = amp_cell("bf16", "bfloat16", 1.6);
  bf16.breakdown = breakdown(0.006, 0.004, "bfloat16", 0.0005, 0.001);
  auto fp16 = amp_cell("fp16", "float16", 0.10);
  fp16.breakdown = breakdown(0.100, 0.064, "float16", 0.016, 0.012);
  fp16.scaler = ScalerTelemetry{{65536.0, 256.0, 1.0, 0.5}, {1, 2, 3}};
  report.cells = {fp32, bf16, fp16};
  return report;
}

std::vector<std::string> ids_of(const std::vector<Finding>& findings, const std::string& cell) {
  std::vector<std::string> ids;
  for (const auto& finding : findings_for(findings, cell)) ids.push_back(finding.id);
  return ids;
}

// Callers keep a copy: g++ 13 warns (-Wdangling-reference) when a reference returned by a call
// with temporary string arguments is kept (the GPU kit's Ubuntu 24.04 build did).
const Finding& find(const std::vector<Finding>& findings, const std::string& cell, const std::string& id) {
  const auto found = std::find_if(findings.begin(), findings.end(),
                                  [&](const Finding& f) { return f.cell.rfind(cell, 0) == 0 && f.id == id; });
  if (found == findings.end()) throw std::runtime_error("no " + id + " for " + cell);
  return *found;
}

double evidence(const Finding& finding, const std::string& name) {
  for (const auto& [key, value] : finding.evidence) {
    if (key == name) return value;
  }
  throw std::runtime_error("no evidence " + name);
}

TEST(Explain, EachFindingFiresOnItsEvidence) {
  const auto findings = explain(cpu_report());
  EXPECT_TRUE(findings_for(findings, "transformer/fp32").empty());  // FP32 is the reference
  EXPECT_EQ(ids_of(findings, "transformer/bf16"),
            (std::vector<std::string>{"native-gemm", "casts-and-float32-ops", "amdahl-ceiling"}));
  EXPECT_EQ(ids_of(findings, "transformer/fp16"),
            (std::vector<std::string>{"no-native-gemm", "casts-and-float32-ops", "amdahl-ceiling", "skipped-steps",
                                      "scale-collapse"}));
  const auto no_gemm = find(findings, "transformer/fp16", "no-native-gemm");
  EXPECT_NEAR(evidence(no_gemm, "gemm_peak_ratio"), 0.15, 1e-12);
  EXPECT_NE(no_gemm.sentence.find("neither avx512_fp16 nor amx_fp16"), std::string::npos) << no_gemm.sentence;
  EXPECT_NE(find(findings, "transformer/bf16", "native-gemm").sentence.find("it has avx512_bf16"), std::string::npos);
  const auto casts = find(findings, "transformer/fp16", "casts-and-float32-ops");
  EXPECT_NEAR(evidence(casts, "casts_share"), 0.16, 1e-12);
  EXPECT_NEAR(evidence(casts, "float32_ops_share"), 0.12, 1e-12);
}

// SimpleCNN on a Xeon with avx512_fp16 (docs/performance.md): float16's weight-gradient
// convolution takes 1.3 s of a 1.37 s step against 9 ms in FP32's. The op is named, with its growth;
// not where it is under half the step, grew less than 2x, or FP32's breakdown lacks it.
TEST(Explain, AnOpThatTakesMostOfTheStepAndGrewFromFp32IsNamed) {
  auto report = cpu_report();
  report.cells[0].breakdown->top_ops = {{"aten::convolution_backward", "float32", 0.009},
                                        {"aten::addmm", "float32", 0.001}};
  report.cells[2].breakdown->step_time_s = 1.37;
  report.cells[2].breakdown->top_ops = {{"aten::convolution_backward", "float16", 1.3},
                                        {"aten::convolution_backward", "float32", 0.002}};
  report.cells[1].breakdown->top_ops = {{"aten::convolution_backward", "bfloat16", 0.004}};
  const auto findings = explain(report);
  const auto op = find(findings, "transformer/fp16", "dominant-op");
  EXPECT_NEAR(evidence(op, "op_share"), 1.3 / 1.37, 1e-12);
  EXPECT_NEAR(evidence(op, "fp32_op_seconds_per_step"), 0.009, 1e-12);
  EXPECT_NEAR(evidence(op, "growth_vs_fp32"), 1.3 / 0.009, 1e-9);
  EXPECT_NE(op.sentence.find("aten::convolution_backward in float16, 1.300 s of the 1.370 s profiled step (94.9%), "
                             "144.44x its 9.000 ms in FP32's profiled step"),
            std::string::npos)
      << op.sentence;
  EXPECT_NE(op.sentence.find("ONEDNN_VERBOSE=1"), std::string::npos) << op.sentence;
  // BF16's op is 0.004 s of its 0.006 s step but 0.44x FP32's: not it.
  const auto bf16 = ids_of(findings, "transformer/bf16");
  EXPECT_EQ(std::count(bf16.begin(), bf16.end(), "dominant-op"), 0);
  const auto count = [](const Report& changed) {
    const auto ids = ids_of(explain(changed), "transformer/fp16");
    return std::count(ids.begin(), ids.end(), "dominant-op");
  };
  auto small = report;
  small.cells[2].breakdown->top_ops[0].seconds_per_step = 0.6;  // 44% of the step
  EXPECT_EQ(count(small), 0);
  auto grew_little = report;
  grew_little.cells[0].breakdown->top_ops[0].seconds_per_step = 0.7;  // 1.86x
  EXPECT_EQ(count(grew_little), 0);
  auto unknown = report;
  unknown.cells[0].breakdown->top_ops.erase(unknown.cells[0].breakdown->top_ops.begin());
  EXPECT_EQ(count(unknown), 0);
  // On a GPU the pointer is to the kernels' names.
  auto gpu = report;
  for (auto& cell : gpu.cells) cell.device = "cuda:0";
  const auto on_gpu = find(explain(gpu), "transformer/fp16", "dominant-op").sentence;
  EXPECT_EQ(on_gpu.find("ONEDNN"), std::string::npos) << on_gpu;
  EXPECT_NE(on_gpu.find("Nsight Systems"), std::string::npos) << on_gpu;
}

// The dtypes timed in interleaved rounds: the interval decides. This Xeon's float16 at::mm is about
// float32's speed; its peak alone read 0.97x in one run and 1.06x in the next, and the finding
// flipped between "does not gain" and "has native float16 GEMM".
TEST(Explain, AGemmWithinItsIntervalOfFloat32IsNeitherFasterNorSlower) {
  auto report = cpu_report();
  report.environment.cpu_flags = {"avx512f", "avx512_bf16", "avx512_fp16", "amx_tile", "amx_bf16"};
  auto& fp16_peak = report.environment.gemm_peaks[2];
  fp16_peak.flops_per_s = 212e9;  // the peaks alone: 1.06x
  fp16_peak.versus_float32 = GemmSpeedRatio{{0.97, 0.91, 1.04}, 8, 512};
  auto findings = explain(report);
  EXPECT_EQ(ids_of(findings, "transformer/fp16").front(), "gemm-like-float32");
  const auto like = find(findings, "transformer/fp16", "gemm-like-float32");
  EXPECT_EQ(like.sentence,
            "cpu's float16 GEMM is neither faster nor slower than float32's within this run's precision: at::mm runs "
            "0.97x [0.91, 1.04] as fast in float16 as in float32 at 512x512 over 8 interleaved rounds (peaks 212.0 "
            "GFLOP/s in "
            "float16 against 200.0 GFLOP/s in float32); it has avx512_fp16 (flags: avx512f avx512_bf16 avx512_fp16 "
            "amx_tile amx_bf16). Matrix products gain nothing measurable from float16 here.");
  EXPECT_DOUBLE_EQ(evidence(like, "gemm_peak_ratio"), 0.97);
  EXPECT_DOUBLE_EQ(evidence(like, "gemm_ratio_ci_low"), 0.91);
  EXPECT_DOUBLE_EQ(evidence(like, "gemm_ratio_ci_high"), 1.04);
  // Paired at no common size (or in an older report): each dtype at its own peak's size, named.
  report.environment.gemm_peaks[0].matrix_size = 256;
  fp16_peak.versus_float32->matrix_size = 0;
  EXPECT_NE(find(explain(report), "transformer/fp16", "gemm-like-float32")
                .sentence.find("as fast in float16 at 1024x1024 as in float32 at 256x256 over 8 interleaved rounds"),
            std::string::npos);
  // The whole interval above 1: faster, although the peaks alone read slower; below 1: slower.
  fp16_peak.flops_per_s = 190e9;
  fp16_peak.versus_float32 = GemmSpeedRatio{{1.08, 1.02, 1.14}, 8};
  findings = explain(report);
  EXPECT_NE(find(findings, "transformer/fp16", "native-gemm").sentence.find("at::mm runs 1.08x [1.02, 1.14]"),
            std::string::npos);
  fp16_peak.versus_float32 = GemmSpeedRatio{{0.93, 0.88, 0.99}, 8};
  findings = explain(report);
  EXPECT_NE(find(findings, "transformer/fp16", "no-native-gemm").sentence.find("does not gain from it here"),
            std::string::npos);
  EXPECT_TRUE(std::none_of(findings.begin(), findings.end(),
                           [](const Finding& finding) { return finding.id == "gemm-like-float32"; }));
}

// A Xeon's figures (docs/performance.md): avx512_fp16 and amx_bf16, float16 GEMM 0.92x float32. The
// instructions are there and the GEMM does not gain from them; no "no fast GEMM ... it has".
TEST(Explain, InstructionsThatTheGemmDoesNotGainFromAreNamedAsSuch) {
  auto report = cpu_report();
  report.environment.cpu_flags = {"avx512f", "avx512_bf16", "avx512_fp16", "amx_tile", "amx_bf16"};
  report.environment.gemm_peaks = {{"cpu", "float32", MeasurementStatus::kMeasured, "", 431.3e9, 1024, "m"},
                                   {"cpu", "bfloat16", MeasurementStatus::kMeasured, "", 1742e9, 1024, "m"},
                                   {"cpu", "float16", MeasurementStatus::kMeasured, "", 395.6e9, 1024, "m"}};
  const auto findings = explain(report);
  const auto fp16 = find(findings, "transformer/fp16", "no-native-gemm");
  EXPECT_EQ(fp16.sentence,
            "cpu has avx512_fp16 (flags: avx512f avx512_bf16 avx512_fp16 amx_tile amx_bf16), and LibTorch's float16 "
            "GEMM does not gain from it here: at::mm reaches 395.6 GFLOP/s in float16 against 431.3 GFLOP/s in "
            "float32 (0.92x). Every matrix product autocast lowers to float16 runs slower than in float32 here. A "
            "LibTorch whose float16 GEMM (oneDNN) uses these instructions, or a CPU with amx_fp16, might gain; "
            "neither was measured here.");
  EXPECT_NEAR(evidence(fp16, "gemm_peak_ratio"), 395.6 / 431.3, 1e-12);
  EXPECT_NE(find(findings, "transformer/bf16", "native-gemm").sentence.find("it has amx_bf16"), std::string::npos);
  // With the matrix instructions too, only a LibTorch that uses them is left to suggest.
  report.environment.cpu_flags.push_back("amx_fp16");
  const auto with_amx = find(explain(report), "transformer/fp16", "no-native-gemm").sentence;
  EXPECT_NE(with_amx.find("has avx512_fp16 and amx_fp16 ("), std::string::npos) << with_amx;
  EXPECT_NE(with_amx.find("does not gain from them here"), std::string::npos) << with_amx;
  EXPECT_NE(with_amx.find("uses these instructions might gain; that was not measured here."), std::string::npos)
      << with_amx;
  // Without them, the sentence stays the one of the golden file: no fast GEMM, and neither flag.
  report.environment.cpu_flags = {"avx2", "fma"};
  EXPECT_NE(find(explain(report), "transformer/fp16", "no-native-gemm").sentence.find("has no fast float16 GEMM"),
            std::string::npos);
}

// The profiler lengthens a step the host issues, not its matrix products: the share is of the
// timed FP32 step (an H200's SimpleNet: 86% of the profiled step, 97% of the timed one), at most 1.
TEST(Explain, TheAmdahlShareIsOfTheTimedStepNotTheProfiledOne) {
  auto report = cpu_report();
  report.cells[0].breakdown = breakdown(0.020, 0.008, "float32", 0.0, 0.001);  // profiled 2x the 10 ms timed
  auto bf16 = find(explain(report), "transformer/bf16", "amdahl-ceiling");
  EXPECT_NEAR(evidence(bf16, "float32_matmul_share"), 0.8, 1e-12);
  EXPECT_NEAR(evidence(bf16, "float32_step_s"), 0.010, 1e-12);
  EXPECT_NE(bf16.sentence.find("80.0% of the timed FP32 step (8.000 ms of 10.00 ms)"), std::string::npos)
      << bf16.sentence;
  EXPECT_NE(bf16.sentence.find("the profiled steps: FP32 20.00 ms"), std::string::npos) << bf16.sentence;
  report.cells[0].breakdown = breakdown(0.020, 0.012, "float32", 0.0, 0.001);  // more products than timed step
  bf16 = find(explain(report), "transformer/bf16", "amdahl-ceiling");
  EXPECT_EQ(evidence(bf16, "float32_matmul_share"), 1.0);
  EXPECT_NEAR(evidence(bf16, "ceiling"), evidence(bf16, "matmul_speedup"), 1e-12);
}

TEST(Explain, TheAmdahlCeilingIsComparedWithTheMeasuredSpeedup) {
  const auto findings = explain(cpu_report());
  const auto bf16 = find(findings, "transformer/bf16", "amdahl-ceiling");
  EXPECT_NEAR(evidence(bf16, "float32_matmul_share"), 0.8, 1e-12);
  EXPECT_NEAR(evidence(bf16, "matmul_speedup"), 2.0, 1e-12);
  EXPECT_NEAR(evidence(bf16, "ceiling"), 1.0 / (0.2 + 0.4), 1e-12);
  EXPECT_EQ(evidence(bf16, "agrees"), 1.0);
  const auto fp16 = find(findings, "transformer/fp16", "amdahl-ceiling");
  EXPECT_NEAR(evidence(fp16, "ceiling"), 1.0 / (0.2 + 0.8 * 8.0), 1e-12);
  EXPECT_EQ(evidence(fp16, "agrees"), 0.0);
  // The gap is named by what grew: casts +16 ms, kept-in-float32 +11 ms, elementwise +7 ms.
  EXPECT_NE(fp16.sentence.find("casts +16.00 ms, kept in float32 +11.00 ms, elementwise +7.000 ms"), std::string::npos)
      << fp16.sentence;
}

TEST(Explain, WithoutEvidenceItSaysWhatIsMissing) {
  auto report = cpu_report();
  report.environment.gemm_peaks.clear();
  for (auto& cell : report.cells) cell.breakdown.reset();
  report.cells[2].scaler.reset();
  const auto findings = explain(report);
  EXPECT_EQ(ids_of(findings, "transformer/bf16"), (std::vector<std::string>{"unavailable"}));
  EXPECT_NE(find(findings, "transformer/bf16", "unavailable")
                .sentence.find("no profiled time breakdown (a report from before it); no measured bfloat16 GEMM peak"),
            std::string::npos);
  // A run made with --no-breakdown is told so, not taken for an old report.
  report.config.breakdown = false;
  EXPECT_NE(find(explain(report), "transformer/bf16", "unavailable")
                .sentence.find("no profiled time breakdown (the run had --no-breakdown)"),
            std::string::npos);
  // Without the FP32 cell there is no ceiling, and it says so.
  report = cpu_report();
  report.cells.erase(report.cells.begin());
  EXPECT_NE(find(explain(report), "transformer/bf16", "unavailable").sentence.find("no successful FP32 cell"),
            std::string::npos);
  EXPECT_EQ(ids_of(explain(report), "transformer/bf16"),
            (std::vector<std::string>{"native-gemm", "casts-and-float32-ops", "unavailable"}));
}

TEST(Explain, GpuRulesNeedTheirEvidence) {
  auto report = cpu_report();
  for (auto& cell : report.cells) cell.device = "cuda:0";
  report.environment.devices = {{"cuda:0", "Tesla V100", "7.0", 0, 80, "Default"}};
  report.environment.gemm_peaks = {{"cuda:0", "float32", MeasurementStatus::kMeasured, "", 14e12, 4096, "m"},
                                   {"cuda:0", "bfloat16", MeasurementStatus::kMeasured, "", 10e12, 4096, "m"}};
  report.cells[0].settings.float32_matmul_precision = "high";
  report.cells[1].host_step_times_s.assign(report.cells[1].step_times_s.size(), 0.0059);
  report.cells[1].breakdown->unaligned_matmul_s = 0.001;  // of the 4 ms of matrix products
  report.cells[1].breakdown->unaligned_matmul_ops = {"aten::addmm [64] [64, 100] [100, 10]"};
  const auto findings = explain(report);
  const auto unaligned = find(findings, "transformer/bf16", "unaligned-shapes");
  EXPECT_NEAR(evidence(unaligned, "unaligned_share"), 0.25, 1e-12);
  EXPECT_NE(unaligned.sentence.find("(aten::addmm [64] [64, 100] [100, 10])"), std::string::npos);
  EXPECT_NE(find(findings, "transformer/bf16", "no-native-gemm").sentence.find("has no bfloat16 tensor cores"),
            std::string::npos);
  EXPECT_EQ(evidence(find(findings, "transformer/bf16", "tf32-baseline"), "baseline_tf32"), 1.0);
  EXPECT_GE(evidence(find(findings, "transformer/bf16", "host-bound"), "host_share"), 0.8);
  // A host that waits for a full launch queue times each step like the device, but its first steps
  // after a sync show what issuing costs: here a fifth of the step, so not host-bound.
  auto queued = report;
  auto& host = queued.cells[1].host_step_times_s;
  for (std::size_t i = 0; i < host.size(); i += 4) host[i] = 0.2 * queued.cells[1].throughput.step_time_s.median;
  for (const auto& finding : explain(queued)) EXPECT_NE(finding.id, "host-bound") << finding.sentence;
  // A GradScaler step waits for its inf check: the host's time includes the device's, so no finding.
  auto scaled = report;
  scaled.cells[1].scaler = ampbench::reports::ScalerTelemetry{{65536.0, 65536.0}, {}};
  for (const auto& finding : explain(scaled)) EXPECT_NE(finding.id, "host-bound") << finding.sentence;
  // On the CPU report none of them fires, unaligned shapes included.
  auto cpu = cpu_report();
  cpu.cells[1].breakdown->unaligned_matmul_s = 0.001;
  for (const auto& finding : explain(cpu)) {
    EXPECT_NE(finding.id, "tf32-baseline");
    EXPECT_NE(finding.id, "host-bound");
    EXPECT_NE(finding.id, "unaligned-shapes");
  }
}

// A GPU cell is read against its chip's datasheet (and at::mm's own share of it); a chip the table
// does not know is named; a CPU cell has no such finding.
TEST(Explain, AGpuCellsMfuIsReadAgainstItsChipsDatasheet) {
  auto report = cpu_report();
  for (auto& cell : report.cells) cell.device = "cuda:0";
  report.environment.devices = {{"cuda:0", "NVIDIA H200", "9.0", 0, 132, "Default"}};
  report.environment.gemm_peaks = {{"cuda:0", "float32", MeasurementStatus::kMeasured, "", 50e12, 4096, "m"},
                                   {"cuda:0", "bfloat16", MeasurementStatus::kMeasured, "", 791.52e12, 4096, "m"}};
  report.cells[1].throughput.achieved_flops_per_s = 494.7e12;
  const auto mfu = find(explain(report), "transformer/bf16", "mfu");
  EXPECT_DOUBLE_EQ(evidence(mfu, "mfu"), 0.5);
  EXPECT_DOUBLE_EQ(evidence(mfu, "datasheet_flops_per_s"), 989.4e12);
  EXPECT_NEAR(evidence(mfu, "gemm_share_of_datasheet"), 0.8, 1e-12);
  EXPECT_EQ(mfu.sentence.rfind("The step reaches 50.0% MFU: ", 0), 0u) << mfu.sentence;
  report.environment.devices[0].model = "NVIDIA RTX A6000";
  EXPECT_EQ(find(explain(report), "transformer/bf16", "mfu-unknown").sentence,
            "No MFU: no datasheet peak for NVIDIA RTX A6000 (a chip the MFU table does not know).");
  for (const auto& finding : explain(cpu_report())) {
    EXPECT_NE(finding.id, "mfu");
    EXPECT_NE(finding.id, "mfu-unknown");
  }
}

// Beside its graphed twin (--graphs both) an eager AMP cell's step less the graphed one is what the
// host costs it, with the graphed speedup over the graphed FP32; a graphed cell is compared with
// the graphed FP32 and gets no such finding of its own.
TEST(Explain, AGraphedTwinSaysWhatTheHostCostsEachEagerStep) {
  auto report = cpu_report();
  auto graphed_fp32 = sample_cell("transformer", "fp32-graphed", 0.008);
  report.cells.push_back(graphed_fp32);
  report.cells.push_back(amp_cell("bf16-graphed", "bfloat16", 2.5));
  EXPECT_EQ(reference_cell(report, report.cells.back())->mode, "fp32-graphed");
  EXPECT_EQ(reference_cell(report, report.cells[1])->mode, "fp32");
  const auto findings = explain(report);
  const auto cost = find(findings, "transformer/bf16/", "graph-host-cost");
  EXPECT_NEAR(evidence(cost, "host_cost_s"), 0.010 / 1.6 - 0.010 / 2.5, 1e-12);
  EXPECT_DOUBLE_EQ(evidence(cost, "graphed_speedup"), 2.5);
  EXPECT_NE(cost.sentence.find("of each eager step (6.250 ms) is the host issuing kernels: replayed from a CUDA graph "
                               "the step takes 4.000 ms; graphed, the speedup over FP32 is 2.50x"),
            std::string::npos)
      << cost.sentence;
  for (const auto& finding : findings_for(findings, "transformer/bf16-graphed/"))
    EXPECT_NE(finding.id, "graph-host-cost");
  // Without the twin, nothing is said.
  for (const auto& finding : explain(cpu_report())) EXPECT_NE(finding.id, "graph-host-cost");
}

// A 2-rank cell is explained against the FP32 cell of its own ranks, under its own name, and
// `--cell` with that name selects it alone.
TEST(Explain, CellsOfSeveralRanksAreNamedAndComparedByTheirRanks) {
  auto report = cpu_report();
  const auto one_rank = report.cells;
  for (auto cell : one_rank) {
    cell.ranks = 2;
    // On 2 ranks FP32 spends half its step in matrix products (the all-reduce takes a share).
    if (cell.mode == "fp32") cell.breakdown = breakdown(0.010, 0.005, "float32", 0.0, 0.001);
    report.cells.push_back(cell);
  }
  const auto findings = explain(report);
  const auto two_rank_bf16 = findings_for(findings, "transformer/bf16/cpu/default/ranks=2");
  EXPECT_EQ(two_rank_bf16.size(), 3u);
  for (const auto& finding : two_rank_bf16) EXPECT_EQ(finding.cell, "transformer/bf16/cpu/default/ranks=2");
  EXPECT_NEAR(
      evidence(find(findings, "transformer/bf16/cpu/default/ranks=2", "amdahl-ceiling"), "float32_matmul_share"), 0.5,
      1e-12);
  // The one-rank cell keeps its name and its own FP32; as a prefix, its name takes the 2-rank cell too.
  EXPECT_EQ(find(findings, "transformer/bf16", "amdahl-ceiling").cell, "transformer/bf16/cpu/default");
  EXPECT_NEAR(evidence(find(findings, "transformer/bf16", "amdahl-ceiling"), "float32_matmul_share"), 0.8, 1e-12);
  EXPECT_EQ(findings_for(findings, "transformer/bf16").size(), 6u);
  // Without a 2-rank FP32 cell the 2-rank bf16 has no ceiling: the 1-rank FP32 is not its reference.
  report.cells.erase(report.cells.begin() + 3);
  EXPECT_EQ(ids_of(explain(report), "transformer/bf16/cpu/default/ranks=2"),
            (std::vector<std::string>{"native-gemm", "casts-and-float32-ops", "unavailable"}));
}

// SimpleCNN on a Xeon whose float16 convolutions take 1.7 s a step beside 20 ms in FP32 and 16 ms
// in BF16: three workers of two rounds each, stopped at the time cap.
Report slow_partner_report() {
  Report report = cpu_report();
  report.cells.clear();
  for (const auto& [mode, step] :
       std::vector<std::pair<const char*, double>>{{"fp32", 0.020}, {"bf16", 0.016}, {"fp16", 1.7}}) {
    auto cell = sample_cell("simplecnn", mode, step);
    Rounds rounds;
    rounds.interleaved_modes = {"fp32", "bf16", "fp16"};
    rounds.steps_per_round = 1;
    rounds.untimed_steps_per_block = 1;
    rounds.step_time_s = {step, step * 1.1, step * 0.9, step, step * 1.2, step};
    rounds.round_replicate = {0, 0, 1, 1, 2, 2};
    rounds.step_time = {6, step, step * 0.5, step * 2.0, 0.75};
    cell.rounds = rounds;
    cell.throughput.stop_reasons = {{StopReason::kTimeCap, 3}};
    report.cells.push_back(cell);
  }
  return report;
}

TEST(Explain, AModeThatTakesMostOfEachRoundIsNamedWhereItCutThePartnersRounds) {
  auto report = slow_partner_report();
  const auto findings = explain(report);
  for (const char* cell : {"simplecnn/fp32", "simplecnn/bf16"}) {
    const auto finding = find(findings, cell, "slow-partner");
    EXPECT_EQ(evidence(finding, "rounds"), 6.0);
    EXPECT_EQ(evidence(finding, "rounds_per_worker"), 2.0);
    // Each round: 2 steps of each mode at its median round (fp16 3.4 s of 3.472 s).
    EXPECT_NEAR(evidence(finding, "partner_share_of_round"), 3.4 / (3.4 + 0.040 + 0.032), 1e-9);
    EXPECT_NEAR(evidence(finding, "partner_step_time_s"), 1.7, 1e-12);
    EXPECT_NE(finding.sentence.find("fp16's blocks (1.700 s a step)"), std::string::npos) << finding.sentence;
    EXPECT_NE(finding.sentence.find("(--modes fp32,bf16)"), std::string::npos) << finding.sentence;
  }
  // The slow mode is not its own partner.
  const auto fp16 = ids_of(findings, "simplecnn/fp16");
  EXPECT_EQ(std::count(fp16.begin(), fp16.end(), "slow-partner"), 0);
  // Each cell's findings together, in the report's order, whichever rule found them: one heading
  // per cell in the Why section.
  const auto why = render_why_text(findings);
  for (const char* cell : {"simplecnn/fp32/cpu/default\n", "simplecnn/bf16/cpu/default\n"}) {
    const auto first = why.find(cell);
    ASSERT_NE(first, std::string::npos) << why;
    EXPECT_EQ(why.find(cell, first + 1), std::string::npos) << why;
  }
  EXPECT_LT(why.find("simplecnn/bf16/cpu/default\n"), why.find("simplecnn/fp16/cpu/default\n")) << why;

  // Not without each piece of its evidence: workers that stopped for precision, enough rounds per
  // worker, or partners of comparable speed.
  const auto has_it = [](const Report& changed) {
    const auto ids = ids_of(explain(changed), "simplecnn/fp32");
    return std::count(ids.begin(), ids.end(), "slow-partner") > 0;
  };
  auto precise = report;
  for (auto& cell : precise.cells) cell.throughput.stop_reasons = {{StopReason::kPrecisionReached, 3}};
  EXPECT_FALSE(has_it(precise));
  auto many_rounds = report;
  for (auto& cell : many_rounds.cells) {
    auto& rounds = *cell.rounds;
    for (std::size_t i = 0; rounds.step_time_s.size() < 30; ++i) {
      rounds.step_time_s.push_back(rounds.step_time_s[i]);
      rounds.round_replicate.push_back(static_cast<std::int64_t>(i % 3));
    }
    std::sort(rounds.round_replicate.begin(), rounds.round_replicate.end());
  }
  EXPECT_FALSE(has_it(many_rounds));
  auto even = report;
  for (auto& step : even.cells[2].rounds->step_time_s) step = 0.018;
  EXPECT_FALSE(has_it(even));
}

// The same SimpleCNN as the harness now times it: FP16 in rounds of its own, FP32 and BF16 together.
TEST(Explain, AModeTimedInRoundsOfItsOwnSaysWhyAndWhatItsSpeedupRestsOn) {
  auto report = slow_partner_report();
  report.cells[0].rounds->interleaved_modes = {"fp32", "bf16"};
  report.cells[1].rounds->interleaved_modes = {"fp32", "bf16"};
  report.cells[2].rounds->interleaved_modes = {"fp16"};
  const auto findings = explain(report);
  const auto finding = find(findings, "simplecnn/fp16", "timed-apart");
  EXPECT_NEAR(evidence(finding, "step_time_s"), 1.7, 1e-12);
  EXPECT_NEAR(evidence(finding, "fastest_partner_step_time_s"), 0.016, 1e-12);
  EXPECT_EQ(evidence(finding, "rounds_per_worker"), 2.0);
  EXPECT_NE(finding.sentence.find("apart from fp32, bf16: its step, 1.700 s, is 106.25x bf16's (16.00 ms)"),
            std::string::npos)
      << finding.sentence;
  EXPECT_NE(finding.sentence.find("would have left them under 10 rounds"), std::string::npos) << finding.sentence;
  EXPECT_NE(finding.sentence.find("pairs no rounds with fp32's"), std::string::npos) << finding.sentence;
  const auto count = [&](const Report& changed, const char* cell) {
    const auto ids = ids_of(explain(changed), cell);
    return std::count(ids.begin(), ids.end(), "timed-apart");
  };
  EXPECT_EQ(count(report, "simplecnn/fp32"), 0);
  EXPECT_EQ(count(report, "simplecnn/bf16"), 0);
  // Two modes: FP32 left alone by its slow partner is not itself apart.
  auto two = report;
  two.cells.erase(two.cells.begin() + 1);
  two.cells[0].rounds->interleaved_modes = {"fp32"};
  EXPECT_EQ(count(two, "simplecnn/fp32"), 0);
  EXPECT_EQ(count(two, "simplecnn/fp16"), 1);
  const auto alone_apart = find(explain(two), "simplecnn/fp16", "timed-apart").sentence;
  EXPECT_NE(alone_apart.find("would have left fp32 under 10 rounds per worker"), std::string::npos) << alone_apart;
  // A worker that died and reran its modes alone explains the arrangement instead.
  auto rerun = report;
  rerun.reruns.push_back({"simplecnn",
                          1,
                          0,
                          "cell process killed by signal 9 (Killed)",
                          {"fp32", "bf16", "fp16"},
                          {"fp32", "bf16", "fp16"}});
  EXPECT_EQ(count(rerun, "simplecnn/fp16"), 0);
  // Nor on the modes taking turns all together.
  EXPECT_EQ(count(slow_partner_report(), "simplecnn/fp16"), 0);
}

TEST(Explain, WhyMarkdownMatchesGolden) {
  ampbench::testing::expect_matches_golden(render_why_markdown(explain(cpu_report())), "why.md");
  EXPECT_EQ(render_why_markdown({}), "");
}

}  // namespace
