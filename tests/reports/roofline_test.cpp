// Each cell read against the GEMM peak of its compute dtype: which peak applies (TF32, device),
// and when there is none (no peak measured, an unavailable one, a failed cell).
#include "ampbench/reports/roofline.h"

#include <gtest/gtest.h>

#include "sample_report.h"

namespace {

using namespace ampbench::reports;
using ampbench::testing::sample_cell;

GemmPeak measured(const char* device, const char* dtype, double flops_per_s) {
  return {device,
          dtype,
          MeasurementStatus::kMeasured,
          "",
          flops_per_s,
          1024,
          "at::mm 1024x1024, best of 9 calls, 2 threads"};
}

// A cell achieving `flops_per_s` on `device`.
CellResult cell_at(const char* mode, const char* device, double flops_per_s) {
  CellResult cell = sample_cell("simple_net", mode, 1e-3);
  cell.device = device;
  cell.throughput.achieved_flops_per_s = flops_per_s;
  return cell;
}

Environment gpu_peaks() {
  Environment environment;
  environment.gemm_peaks = {measured("cuda:0", "float32", 50e12), measured("cuda:0", "float16", 800e12),
                            measured("cuda:0", "bfloat16", 800e12), measured("cuda:0", "tfloat32", 400e12)};
  return environment;
}

TEST(Roofline, EachCellIsReadAgainstItsComputeDtypesPeak) {
  const Environment environment = gpu_peaks();
  EXPECT_DOUBLE_EQ(*fraction_of_peak(environment, cell_at("fp32", "cuda:0", 25e12)), 0.5);
  EXPECT_DOUBLE_EQ(*fraction_of_peak(environment, cell_at("fp16", "cuda:0", 200e12)), 0.25);
  EXPECT_DOUBLE_EQ(*fraction_of_peak(environment, cell_at("bf16", "cuda:0", 80e12)), 0.1);
}

TEST(Roofline, ATf32CellIsReadAgainstTheTf32Peak) {
  CellResult cell = cell_at("fp32", "cuda:0", 100e12);
  cell.mode = "tf32";
  cell.settings.tf32_matmul = true;
  EXPECT_EQ(peak_dtype(cell), "tfloat32");
  EXPECT_DOUBLE_EQ(*fraction_of_peak(gpu_peaks(), cell), 0.25);
  // TF32 changes only float32 matmuls: an autocast cell keeps its low-precision dtype's peak.
  cell.settings.compute_dtype = "bfloat16";
  EXPECT_EQ(peak_dtype(cell), "bfloat16");
}

// A group of ranks has one peak per rank: 2 ranks achieving the one-GPU peak in all are at half.
TEST(Roofline, ADataParallelCellIsReadAgainstItsRanksPeaks) {
  CellResult cell = cell_at("fp32", "cuda:0", 50e12);
  cell.ranks = 2;
  EXPECT_DOUBLE_EQ(*fraction_of_peak(gpu_peaks(), cell), 0.5);
}

TEST(Roofline, NoPeakMeansNoFraction) {
  EXPECT_FALSE(fraction_of_peak(Environment{}, cell_at("fp32", "cpu", 1e9)).has_value());
  // A peak for another device does not apply.
  EXPECT_FALSE(fraction_of_peak(gpu_peaks(), cell_at("fp32", "cpu", 1e9)).has_value());
  // Nor does one that could not be measured.
  Environment environment;
  environment.gemm_peaks = {
      {"cpu", "float16", MeasurementStatus::kUnavailable, "not implemented for 'Half'", 0.0, 0, ""}};
  EXPECT_EQ(find_gemm_peak(environment, "cpu", "float16"), nullptr);
  EXPECT_FALSE(fraction_of_peak(environment, cell_at("fp16", "cpu", 1e9)).has_value());
}

TEST(Roofline, AFailedCellHasNoFraction) {
  Report report;
  report.environment = gpu_peaks();
  report.cells = {cell_at("fp32", "cuda:0", 25e12), cell_at("fp16", "cuda:0", 200e12)};
  report.cells[1].status = CellStatus::kFailed;
  report.cells[1].throughput.fraction_of_peak = 0.9;  // stale: a failed cell measured nothing
  fill_fractions_of_peak(report);
  ASSERT_TRUE(report.cells[0].throughput.fraction_of_peak.has_value());
  EXPECT_DOUBLE_EQ(*report.cells[0].throughput.fraction_of_peak, 0.5);
  EXPECT_FALSE(report.cells[1].throughput.fraction_of_peak.has_value());
}

}  // namespace
