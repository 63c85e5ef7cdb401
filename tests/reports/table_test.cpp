// The terminal table against its golden file, and the properties a reader relies on.
#include "ampbench/reports/table.h"

#include "ampbench/reports/html.h"
#include "ampbench/reports/markdown.h"
#include "ampbench/reports/roofline.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "golden.h"
#include "render/format.h"
#include "render/html_page.h"
#include "render/markdown_table.h"
#include "render/text_table.h"
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
  EXPECT_NE(table.find("n/a: the 1-rank"), std::string::npos) << table;  // wrapped to fit 160 columns
  EXPECT_NE(table.find("cell failed"), std::string::npos) << table;
  report.cells.resize(3);  // the one-rank cells
  table = render_table(report);
  EXPECT_EQ(table.find("ranks"), std::string::npos) << table;
  EXPECT_EQ(table.find("Data parallel"), std::string::npos) << table;
}

// A report with a GPU cell has an MFU column after "% of peak" and a note naming the chip's
// datasheet; a CPU report keeps its columns (the golden file above).
TEST(RenderTable, AGpuCellBringsTheMfuColumnAndItsDatasheet) {
  Report report = make_sample_report();
  EXPECT_EQ(render_table(report).find("MFU"), std::string::npos);
  report.environment.devices.push_back({"cuda:0", "NVIDIA H100 80GB HBM3", "9.0", 80LL << 30, 132, "Default"});
  report.cells.push_back(ampbench::testing::sample_gpu_cell());
  report.cells.back().throughput.achieved_flops_per_s = 98.94e12;
  fill_fractions_of_peak(report);
  const std::string table = render_table(report);
  EXPECT_NE(table.find("% of peak  MFU"), std::string::npos) << table;
  EXPECT_NE(table.find(" 10.0% "), std::string::npos) << table;  // float16: 98.94 of 989.4 TFLOP/s
  EXPECT_NE(table.find("MFU: achieved FLOP/s over NVIDIA H100 SXM's datasheet dense peak (float32 "), std::string::npos)
      << table;
  for (const std::string& page : {render_markdown(report), render_html(report)}) {
    EXPECT_NE(page.find("MFU: achieved FLOP/s over NVIDIA H100 SXM"), std::string::npos);
  }
  report.environment.devices.back().model = "NVIDIA GeForce RTX 4090";
  fill_fractions_of_peak(report);
  EXPECT_NE(render_table(report).find("No MFU: no datasheet peak for NVIDIA GeForce RTX 4090"), std::string::npos);
}

// A terminal of 160 columns holds the table; without the limit it would take 180.
TEST(RenderTable, FitsATerminalOf160Columns) {
  std::istringstream lines(render_table(make_sample_report()));
  std::string line;
  while (std::getline(lines, line) && line.rfind("GEMM peak", 0) != 0) {
    EXPECT_LE(detail::display_width(line), detail::kTerminalWidth) << line;
  }
}

// Long sentences wrap first, then headers; a cell wraps at spaces outside brackets and parentheses
// and never inside a figure with its unit and interval.
TEST(TextTable, WrapsTheWidestCellAtSpacesOutsideBrackets) {
  detail::Table table({"name", "figure", "verdict"});
  table.add_row({"a", "1.25 ms [1.24, 1.26]", "within the noise floor (0.5% vs floor 1%)"});
  EXPECT_EQ(detail::text_table(table, 200),
            "name  figure                verdict\n"
            "a     1.25 ms [1.24, 1.26]  within the noise floor (0.5% vs floor 1%)\n");
  EXPECT_EQ(detail::text_table(table, 50),
            "name  figure                verdict\n"
            "a     1.25 ms [1.24, 1.26]  within the noise floor\n"
            "                            (0.5% vs floor 1%)\n");
  EXPECT_EQ(detail::unbreakable_words("0.30x [0.30, 0.31]"), (std::vector<std::string>{"0.30x [0.30, 0.31]"}));
  EXPECT_EQ(detail::unbreakable_words("1.250 ms [1.241, 1.259]"),
            (std::vector<std::string>{"1.250 ms [1.241, 1.259]"}));
  EXPECT_EQ(detail::unbreakable_words("30.0k (1 major)"), (std::vector<std::string>{"30.0k", "(1 major)"}));
  EXPECT_EQ(detail::wrapped("memory vs fp32", 6), (std::vector<std::string>{"memory", "vs", "fp32"}));
}

// A word longer than any width the table allows is never cut: the line runs long instead.
TEST(TextTable, ALongWordRunsPastTheLimitRatherThanBeingCut) {
  detail::Table table({"h"});
  table.add_row({"abcdefghij"});
  EXPECT_EQ(detail::text_table(table, 4), "h\nabcdefghij\n");
}

// One table, three drawings: each format escapes what it must, and a spanning row's rest is for the
// terminal only (Markdown and HTML pages list failed cells' errors on their own).
TEST(Table, OneTableDrawsInEveryFormat) {
  detail::Table table({"cell", "note"});
  table.add_row({"a|b", "x < y"});
  table.add_spanning_row({"c"}, "FAILED: boom");
  EXPECT_EQ(detail::text_table(table), "cell  note\na|b   x < y\nc     FAILED: boom\n");
  EXPECT_EQ(detail::markdown_table(table), "| cell | note |\n| --- | --- |\n| a\\|b | x < y |\n| c |  |\n");
  EXPECT_EQ(detail::html_table("t", table),
            "<div class=\"table-wrap\"><table class=\"t\"><thead><tr><th>cell</th><th>note</th></tr></thead><tbody>\n"
            "<tr><td>a|b</td><td>x &lt; y</td></tr>\n<tr><td>c</td></tr>\n</tbody></table></div>\n");
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
  EXPECT_NE(table.find("(0.00055% vs floor 0.902%)"), std::string::npos) << table;
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
