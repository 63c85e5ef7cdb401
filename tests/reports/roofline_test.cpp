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

// The chips the MFU table must know, by the names their drivers report, and the ones it must not
// confuse: the SXM H100 reports no form factor, an L40 is not an L4.
TEST(DatasheetPeaks, EachChipIsFoundByTheNameItsDriverReports) {
  const std::vector<std::pair<std::string, std::string>> names{{"NVIDIA H200", "NVIDIA H200 SXM"},
                                                               {"NVIDIA H200 NVL", "NVIDIA H200 NVL"},
                                                               {"NVIDIA H100 80GB HBM3", "NVIDIA H100 SXM"},
                                                               {"NVIDIA H100 PCIe", "NVIDIA H100 PCIe"},
                                                               {"NVIDIA H100 NVL", "NVIDIA H100 NVL"},
                                                               {"NVIDIA A100-SXM4-80GB", "NVIDIA A100"},
                                                               {"NVIDIA A100-PCIE-40GB", "NVIDIA A100"},
                                                               {"Tesla V100-SXM2-16GB", "NVIDIA V100 SXM2"},
                                                               {"Tesla V100-PCIE-32GB", "NVIDIA V100 PCIe"},
                                                               {"NVIDIA L4", "NVIDIA L4"},
                                                               {"NVIDIA L40S", "NVIDIA L40S"},
                                                               {"NVIDIA B200", "NVIDIA B200"}};
  for (const auto& [model, chip] : names) {
    const DatasheetPeaks* peaks = find_datasheet_peaks(model);
    ASSERT_NE(peaks, nullptr) << model;
    EXPECT_EQ(peaks->chip, chip) << model;
    EXPECT_GT(peaks->bfloat16 + peaks->float16, peaks->float32) << model;  // tensor cores beat the FP32 units
  }
  EXPECT_EQ(find_datasheet_peaks("NVIDIA L40"), nullptr);
  EXPECT_EQ(find_datasheet_peaks("NVIDIA GeForce RTX 4090"), nullptr);
  EXPECT_EQ(find_datasheet_peaks("AMD EPYC 7B13"), nullptr);
  EXPECT_DOUBLE_EQ(find_datasheet_peaks("NVIDIA H200")->bfloat16, 989.4e12);
}

Environment h200() {
  Environment environment = gpu_peaks();
  environment.devices = {{"cpu", "AMD EPYC", "", 0, 16, ""}, {"cuda:0", "NVIDIA H200", "9.0", 0, 132, "Default"}};
  return environment;
}

TEST(Mfu, ACellsFlopRateOverItsChipsDatasheetPeakForItsDtype) {
  EXPECT_DOUBLE_EQ(*model_flops_utilisation(h200(), cell_at("bf16", "cuda:0", 494.7e12)), 0.5);
  EXPECT_DOUBLE_EQ(*model_flops_utilisation(h200(), cell_at("fp32", "cuda:0", 66.9e12)), 1.0);
  CellResult tf32 = cell_at("fp32", "cuda:0", 98.94e12);
  tf32.settings.tf32_matmul = true;
  EXPECT_DOUBLE_EQ(*model_flops_utilisation(h200(), tf32), 0.2);
  CellResult ranks = cell_at("bf16", "cuda:0", 989.4e12);
  ranks.ranks = 2;
  EXPECT_DOUBLE_EQ(*model_flops_utilisation(h200(), ranks), 0.5);
}

TEST(Mfu, ACpuAnUnknownChipOrAMissingDtypeHasNoneAndSaysWhy) {
  EXPECT_FALSE(model_flops_utilisation(h200(), cell_at("fp32", "cpu", 1e9)).has_value());
  EXPECT_EQ(why_no_mfu(h200(), cell_at("fp32", "cpu", 1e9)), "");  // a CPU has no datasheet to read
  Environment other = h200();
  other.devices[1].model = "NVIDIA GeForce RTX 4090";
  const CellResult cell = cell_at("bf16", "cuda:0", 1e14);
  EXPECT_FALSE(model_flops_utilisation(other, cell).has_value());
  EXPECT_EQ(why_no_mfu(other, cell),
            "no datasheet peak for NVIDIA GeForce RTX 4090 (a chip the MFU table does not know)");
  other.devices[1].model = "Tesla V100-SXM2-16GB";
  EXPECT_FALSE(model_flops_utilisation(other, cell).has_value());
  EXPECT_EQ(why_no_mfu(other, cell), "NVIDIA V100 SXM2 has no bfloat16 peak on its datasheet");
  EXPECT_EQ(why_no_mfu(h200(), cell), "");
}

TEST(Mfu, FillingTheReportSetsItBesideTheFractionOfPeak) {
  Report report;
  report.environment = h200();
  report.cells = {cell_at("bf16", "cuda:0", 98.94e12), cell_at("fp32", "cpu", 1e9)};
  fill_fractions_of_peak(report);
  ASSERT_TRUE(report.cells[0].throughput.mfu.has_value());
  EXPECT_DOUBLE_EQ(*report.cells[0].throughput.mfu, 0.1);
  EXPECT_FALSE(report.cells[1].throughput.mfu.has_value());
}

}  // namespace
