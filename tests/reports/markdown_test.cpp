// The Markdown report, the compare Markdown and the check Markdown against golden files.
#include "ampbench/reports/markdown.h"

#include <gtest/gtest.h>

#include "ampbench/reports/check.h"
#include "ampbench/reports/html.h"
#include "ampbench/reports/run_series.h"
#include "golden.h"
#include "sample_report.h"

namespace {

using namespace ampbench::reports;
using ampbench::testing::expect_matches_golden;
using ampbench::testing::make_sample_report;

TEST(RenderMarkdown, MatchesGolden) { expect_matches_golden(render_markdown(make_sample_report()), "report.md"); }

// The answer first: a line per workload, fastest mode first, before the summary table; "faster" or
// "slower" only where the interval leaves 1 out.
TEST(RenderMarkdown, OpensWithTheAnswerPerWorkload) {
  Report report = make_sample_report();
  const std::string markdown = render_markdown(report);
  const auto glance = markdown.find("**At a glance**");
  ASSERT_NE(glance, std::string::npos) << markdown;
  EXPECT_LT(glance, markdown.find("| workload | mode | device |"));
  EXPECT_NE(markdown.find("- **simple_net**: bf16 1.39x [1.37, 1.40] faster, 1.00x the memory, loss diverged; fp16 "
                          "0.30x [0.30, 0.31] slower, 0.83x the memory, loss within the noise floor\n"),
            std::string::npos)
      << markdown;
  EXPECT_NE(markdown.find("- **simple_cnn**: bf16 0.05x [0.05, 0.05] slower, 1.00x the memory, loss above the "
                          "floor; fp16 failed\n"),
            std::string::npos)
      << markdown;
  report.cells[2].speedup_vs_fp32 = Ratio{1.02, 0.95, 1.10};
  EXPECT_NE(render_markdown(report).find("bf16 1.02x [0.95, 1.10], no clear difference"), std::string::npos);
  // A step time relative to FP32's, as a bar of ten blocks to 1.0x, cut at 3x: 1 / 0.05 = 20x.
  EXPECT_NE(markdown.find("| simple_net | fp32 | ██████████ 1.00x [1.00, 1.00] | ██████████ 1.00x |"),
            std::string::npos)
      << markdown;
  EXPECT_NE(markdown.find("| simple_cnn | bf16 | ██████████████████████████████▶ 20.00x"), std::string::npos)
      << markdown;
}

TEST(RenderMarkdown, DataParallelMatchesGolden) {
  expect_matches_golden(render_markdown(ampbench::testing::make_data_parallel_report()), "report-ranks.md");
}

// Why a 2-rank cell has no scaling efficiency: its one-rank twin failed, is missing, or it failed itself.
TEST(RenderMarkdown, SaysWhyAScalingEfficiencyIsMissing) {
  Report report = ampbench::testing::make_data_parallel_report();
  EXPECT_NE(render_markdown(report).find("| simple_net/bf16/cpu/default/ranks=2 | gloo | none | 2 | "),
            std::string::npos);
  EXPECT_NE(render_markdown(report).find("| n/a: the 1-rank cell failed | yes |"), std::string::npos);
  report.cells.erase(report.cells.begin() + 2);  // the failed 1-rank bf16 cell
  EXPECT_NE(render_markdown(report).find("| n/a: no 1-rank cell in the report | yes |"), std::string::npos);
  report.cells.back().status = CellStatus::kFailed;
  report.cells.back().data_parallel->inf_checks_agreed = false;
  EXPECT_NE(render_markdown(report).find("| n/a: this cell failed | no |"), std::string::npos);
}

TEST(RenderMarkdown, PipesInErrorsCannotBreakTheTable) {
  Report report = make_sample_report();
  report.cells[4].error = "a | b\nc";
  const std::string markdown = render_markdown(report);
  EXPECT_NE(markdown.find("a \\| b c"), std::string::npos) << markdown;
}

// A profiled step well over the timed one (the profiler's cost per op; 2.05x on an H200's FP16
// SimpleNet) is named under the breakdown, in Markdown and HTML; one within 1.25x is not.
TEST(RenderMarkdown, NamesTheCellsWhoseProfiledStepTookWellOverTheTimedOne) {
  Report report = make_sample_report();
  for (std::size_t i : {0u, 1u}) {
    auto& cell = report.cells[i];
    cell.throughput.step_time_s.median = 1e-3;
    if (cell.rounds) cell.rounds->step_time.value = 1e-3;
    TimeBreakdown breakdown;
    breakdown.steps = 3;
    breakdown.step_time_s = i == 0 ? 1.2e-3 : 2.05e-3;
    breakdown.categories = {{{OpFamily::kElementwise, {}}, 0.5e-3}};
    breakdown.unattributed_s = breakdown.step_time_s - 0.5e-3;
    breakdown.method = "test";
    cell.breakdown = breakdown;
  }
  const std::string markdown = render_markdown(report);
  const auto name = [&](std::size_t i) {
    return report.cells[i].workload + "/" + report.cells[i].mode + "/" + report.cells[i].device;
  };
  const std::string named =
      "(the profiler's own cost per op, which lengthens a step the host issues): " + name(1) + " 2.05x.";
  EXPECT_NE(markdown.find(named), std::string::npos) << markdown;
  EXPECT_EQ(markdown.find(name(0) + " 1.20x"), std::string::npos);
  const std::string html = render_html(report);
  EXPECT_NE(html.find("id=\"profiling-cost\""), std::string::npos);
  EXPECT_NE(html.find(named), std::string::npos);
  report.cells[1].breakdown->step_time_s = 1.2e-3;
  EXPECT_EQ(render_markdown(report).find("Profiled steps longer"), std::string::npos);
}

// The breakdown's last column is each cell's op with the most time of its own; "-" without top_ops.
TEST(RenderMarkdown, TheBreakdownNamesEachCellsLargestOp) {
  Report report = make_sample_report();
  for (std::size_t i : {0u, 1u}) {
    TimeBreakdown breakdown;
    breakdown.steps = 3;
    breakdown.step_time_s = 20e-3;
    breakdown.categories = {{{OpFamily::kElementwise, {}}, 10e-3}};
    breakdown.unattributed_s = 10e-3;
    breakdown.method = "test";
    if (i == 1) breakdown.top_ops = {{"aten::max_pool2d_with_indices", "float32", 6e-3}, {"aten::relu", "", 1e-3}};
    report.cells[i].breakdown = breakdown;
  }
  const std::string markdown = render_markdown(report);
  EXPECT_NE(markdown.find("| unattributed | largest op (own time) |"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("| 10.00 ms (50.0%) | aten::max_pool2d_with_indices float32 6.000 ms (30.0%) |"),
            std::string::npos)
      << markdown;
  EXPECT_NE(markdown.find("| 10.00 ms (50.0%) | - |"), std::string::npos) << markdown;
  EXPECT_NE(render_html(report).find("aten::max_pool2d_with_indices float32 6.000 ms (30.0%)"), std::string::npos);
}

// The pass's cost per workload: its cells' runs and FP32's floor run (sample_report.h has the sums).
TEST(RenderMarkdown, StatesTheNumericsPassCostAndItsFailures) {
  Report report = make_sample_report();
  std::string markdown = render_markdown(report);
  EXPECT_NE(markdown.find("Numerics pass (divergence): 16 steps per mode, simple_net 7.500 s, simple_cnn 11.60 s."),
            std::string::npos)
      << markdown;
  EXPECT_EQ(markdown.find("Numerics pass failed"), std::string::npos);
  report.cells[2].numerics->error = "numerics pass: the worker was killed by signal 9 (SIGKILL)";
  report.cells[2].divergence.reset();
  markdown = render_markdown(report);
  EXPECT_NE(markdown.find("**Numerics pass failed**\n\n- simple_net/bf16/cpu: numerics pass: the worker was killed"),
            std::string::npos)
      << markdown;
  for (auto& cell : report.cells) cell.numerics.reset();
  EXPECT_EQ(render_markdown(report).find("Numerics pass ("), std::string::npos) << "no pass, no cost line";
}

TEST(RenderMarkdown, GpuCellShowsMetricMethodsAndHostTime) {
  Report report = make_sample_report();
  report.cells.push_back(ampbench::testing::sample_gpu_cell());
  report.environment.gpu_verification =
      "this ampbench version's GPU paths have not yet been verified on a real GPU; see README.";
  const std::string markdown = render_markdown(report);
  EXPECT_NE(markdown.find("tensor_core_kernel_time_share 0.62 fraction (cupti-activity-kernel-names)"),
            std::string::npos)
      << markdown;
  EXPECT_NE(markdown.find("(cupti-range-profiler)"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("**Device vs host time per step**"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("have not yet been verified on a real GPU"), std::string::npos) << markdown;
  EXPECT_EQ(render_markdown(make_sample_report()).find("Device vs host"), std::string::npos)
      << "CPU cells have no separate host time";
}

// The note is what the run that wrote the report knew; a report without it (older, or from a
// version whose GPU paths were verified) gets none, whatever this build knows.
TEST(RenderMarkdown, GpuVerificationNoteComesFromTheReport) {
  Report report = make_sample_report();
  report.cells.push_back(ampbench::testing::sample_gpu_cell());
  EXPECT_EQ(render_markdown(report).find("Note:"), std::string::npos);
  report.environment.gpu_verification = "verified on H100 by ampbench 9.9.";
  EXPECT_NE(render_markdown(report).find("Note: verified on H100 by ampbench 9.9."), std::string::npos);
}

// Where a workload's FLOPs came from is said when ampbench counted them, and only then.
TEST(RenderMarkdown, NamesTheWorkloadsWhoseFlopsWereCounted) {
  Report report = make_sample_report();
  EXPECT_EQ(render_markdown(report).find("FLOPs per step counted"), std::string::npos);
  report.cells[0].throughput.flops_source = FlopSource::kCounted;
  report.cells[1].throughput.flops_source = FlopSource::kCounted;
  EXPECT_NE(render_markdown(report).find("attention; the workload states none): simple_net.\n"), std::string::npos);
}

TEST(RenderCheckMarkdown, MatchesGolden) {
  const Report base = make_sample_report();
  Report current = base;
  for (double& t : current.cells[0].step_times_s) t *= 1.5;
  current.cells[3].memory.peak_tensor_bytes *= 2;
  current.cells.pop_back();
  CheckOptions options;
  const auto result = check_reports(compare_reports(base, current), options);
  expect_matches_golden(render_check_markdown(result, options), "check.md");
  expect_matches_golden(
      render_series_markdown(build_run_series({{"base.json", base}, {"current.json", current}}, options)),
      "compare.md");
  Report third = current;
  third.environment.torch_version = "2.16.0";
  third.environment.timestamp_utc = "2025-01-03T03:04:05Z";
  expect_matches_golden(render_series_markdown(build_run_series(
                            {{"base.json", base}, {"current.json", current}, {"third.json", third}}, options)),
                        "compare-three.md");
}

}  // namespace
