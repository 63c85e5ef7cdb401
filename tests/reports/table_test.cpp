// The terminal table against its golden file, and the properties a reader relies on.
#include "ampbench/reports/table.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "golden.h"
#include "sample_report.h"

namespace {

using namespace ampbench::reports;
using ampbench::testing::make_sample_report;

TEST(RenderTable, MatchesGolden) {
  ampbench::testing::expect_matches_golden(render_table(make_sample_report()), "table.txt");
}

// A run of two ranks: the ranks column, and the data parallel table under the notes.
TEST(RenderTable, DataParallelMatchesGolden) {
  ampbench::testing::expect_matches_golden(render_table(ampbench::testing::make_data_parallel_report()),
                                           "table-ranks.txt");
}

// One-rank reports keep their columns: scripts that read the table by column must not break.
TEST(RenderTable, RanksShowOnlyWhenACellHasSeveral) {
  Report report = ampbench::testing::make_data_parallel_report();
  std::string table = render_table(report);
  EXPECT_EQ(table.rfind("workload    mode  device  ranks  step time (95% CI)", 0), 0u) << table;
  EXPECT_NE(table.find("\nData parallel\n"), std::string::npos) << table;
  EXPECT_NE(table.find("n/a: the 1-rank cell failed"), std::string::npos) << table;
  report.cells.resize(3);  // the one-rank cells
  table = render_table(report);
  EXPECT_EQ(table.find("ranks"), std::string::npos) << table;
  EXPECT_EQ(table.find("Data parallel"), std::string::npos) << table;
}

TEST(RenderTable, FailedCellShowsItsErrorCutToWidth) {
  const std::string table = render_table(make_sample_report());
  EXPECT_NE(table.find("FAILED: the cell's process was killed by signal 9"), std::string::npos) << table;
  EXPECT_NE(table.find("…"), std::string::npos) << table;
  EXPECT_NE(table.find("1 of 6 cells failed."), std::string::npos) << table;
}

TEST(RenderTable, MultiLineErrorsStayOnOneLine) {
  Report report;
  report.cells.push_back(ampbench::testing::sample_cell("simple_net", "fp32", 1e-3));
  report.cells.back().status = CellStatus::kFailed;
  report.cells.back().error = "first line\nsecond line";
  const std::string table = render_table(report);
  EXPECT_NE(table.find("FAILED: first line second line\n"), std::string::npos) << table;
  EXPECT_EQ(std::count(table.begin(), table.end(), '\n'), 3) << table;  // header, row, note
}

// A divergence however small shows its measured value: "<0.001%" would not tell it from zero.
TEST(RenderTable, TinyDivergenceFiguresKeepTwoSignificantDigits) {
  Report report;
  report.cells.push_back(ampbench::testing::sample_cell("simple_net", "bf16", 1e-3));
  Divergence divergence;
  divergence.final_relative_difference = 5.47e-6;
  divergence.final_floor = 0.00902;
  divergence.verdict = DivergenceVerdict::kWithinFloor;
  report.cells.back().divergence = divergence;
  const std::string table = render_table(report);
  EXPECT_NE(table.find("within the noise floor (0.00055% vs floor 0.902%)"), std::string::npos) << table;
}

TEST(RenderTable, PeaksShowUnderTheTableAndTinyFractionsStayReadable) {
  Report report;
  report.environment.gemm_peaks = {
      {"cpu", "float32", MeasurementStatus::kMeasured, "", 1.712e11, 1024, "at::mm"},
      {"cpu", "float16", MeasurementStatus::kUnavailable, "mm: not implemented\nfor 'Half'", 0.0, 0, ""},
      {"cpu", "bfloat16", MeasurementStatus::kMeasured, "", 4.56e11, 512, "at::mm",
       GemmSpeedRatio{{2.6, 2.41, 2.8}, 8, 512}}};
  report.cells.push_back(ampbench::testing::sample_cell("simple_net", "fp32", 1e-3));
  report.cells.back().throughput.fraction_of_peak = 2e-6;
  const std::string table = render_table(report);
  EXPECT_NE(table.find("<0.001%"), std::string::npos) << table;
  EXPECT_NE(table.find("GEMM peak (at::mm, measured by this run): cpu float32 171.2 GFLOP/s, float16 unavailable: "
                       "mm: not implemented for 'Half', bfloat16 456.0 GFLOP/s (2.60x [2.41, 2.80] float32's speed at "
                       "512x512)\n"),
            std::string::npos)
      << table;
}

TEST(RenderTable, EmptyReportIsJustTheHeader) {
  const std::string table = render_table(Report{});
  EXPECT_EQ(std::count(table.begin(), table.end(), '\n'), 1) << table;
}

}  // namespace
