// The HTML report in a real browser (headless Chromium): it renders to a screenshot, its script
// finishes without an error (the page marks #ampbench-render-status with data-status="ok" only
// then), and every chart is in the DOM. A page whose script throws is caught by the same check.
#include "ampbench/reports/history_show.h"
#include "ampbench/reports/html.h"
#include "ampbench/reports/run_series.h"

#include <gtest/gtest.h>

#include <fstream>

#include "sample_report.h"
#include "support/process.h"
#include "support/scratch_dir.h"

namespace {

using ampbench::testing::run_process;
using ampbench::testing::ScratchDir;

std::vector<std::string> chromium(const ScratchDir& dir) {
  return {AMPBENCH_CHROMIUM,
          "--headless",
          "--no-sandbox",
          "--disable-gpu",
          "--hide-scrollbars",
          "--user-data-dir=" + (dir / "profile").string(),
          "--virtual-time-budget=10000"};
}

// The page's DOM after its scripts ran, in a window of the width given.
std::string rendered_dom(const ScratchDir& dir, const std::string& html, int window_width = 1280) {
  std::ofstream(dir / "report.html") << html;
  auto argv = chromium(dir);
  argv.push_back("--window-size=" + std::to_string(window_width) + ",900");
  argv.push_back("--dump-dom");
  argv.push_back("file://" + (dir / "report.html").string());
  const auto result = run_process(argv);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return result.out;
}

long count(const std::string& text, const std::string& needle) {
  long n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

class HtmlInBrowser : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::string(AMPBENCH_CHROMIUM).empty()) GTEST_SKIP() << "chromium not found (Debian package 'chromium')";
  }
  ScratchDir dir_;
};

TEST_F(HtmlInBrowser, ScriptFinishesAndDrawsEveryChart) {
  const std::string dom = rendered_dom(dir_, ampbench::reports::render_html(ampbench::testing::make_sample_report()));
  EXPECT_NE(dom.find("id=\"ampbench-render-status\" data-status=\"ok\""), std::string::npos) << dom.substr(0, 4000);
  EXPECT_EQ(count(dom, "data-chart=\"step-time\""), 2);  // one per workload
  EXPECT_EQ(count(dom, "data-chart=\"speedup\""), 1);
  EXPECT_EQ(count(dom, "data-chart=\"memory\""), 1);
  // The numerics pass, per workload: divergence with the floor band, training and eval loss.
  EXPECT_EQ(count(dom, "data-chart=\"divergence\""), 2);
  EXPECT_EQ(count(dom, "data-chart=\"train-loss\""), 2);
  EXPECT_EQ(count(dom, "data-chart=\"eval-loss\""), 2);
  EXPECT_EQ(count(dom, "data-chart=\"loss\""), 0);  // the timed steps' losses only without a pass
  EXPECT_EQ(count(dom, "data-chart=\"scale\""), 1);
  EXPECT_EQ(count(dom, "data-chart=\"tensor-cores-unavailable\""), 1);
  EXPECT_EQ(count(dom, "data-chart=\"glance-time\""), 1);  // at a glance: every workload's modes
  EXPECT_EQ(count(dom, "data-chart=\"glance-memory\""), 1);
  EXPECT_EQ(count(dom, "class=\"whisker\""), 5 + 3 + 5);  // step-time bars, speedup bars, relative step times
  EXPECT_EQ(count(dom, "class=\"skipped-step\""), 2);     // steps 3 and 4
  EXPECT_EQ(count(dom, "class=\"reference\""), 1 + 2);    // the 1.0x lines: speedup, relative time and memory
  EXPECT_EQ(count(dom, "class=\"beyond-axis\""), 2);      // simple_net fp16 and simple_cnn bf16 above 3x FP32's time
  EXPECT_EQ(count(dom, "<path class=\"band\""), 2);       // the noise floor, one per workload
  // Divergence: simple_net fp16 and bf16, simple_cnn bf16, and each workload's 3x-floor line;
  // training and eval loss: every mode that ran plus the floor run (4 + 3 each); the scale.
  EXPECT_EQ(count(dom, "<path class=\"series\""), (3 + 2) + 2 * (4 + 3) + 1);
  EXPECT_EQ(count(dom, "d=\"M0 0\""), 0) << "every curve has points";
  EXPECT_EQ(count(dom, "stroke-dasharray=\"5 3\""), 2 + 2 * 2);  // the 3x-floor line, the floor run
  EXPECT_NE(dom.find("Numerics pass (divergence): 16 steps per mode, simple_net 7.500 s"), std::string::npos);
  // Ranges per layer: a table and a heat map per cell with layer diagnostics (simple_net's three),
  // two layers x 8 observed steps each; FP16's encoder held inf/NaN on every one.
  EXPECT_EQ(count(dom, "<table class=\"layers\""), 3);
  EXPECT_EQ(count(dom, "<table class=\"layer-heatmap\""), 3);
  EXPECT_EQ(count(dom, "<td class=\"heat "), 3 * 2 * 8);
  EXPECT_EQ(count(dom, "<td class=\"heat non-finite\""), 8);
}

// The divergence curve is |AMP - FP32| / FP32 at each evaluation: 0 at step 0 and 5% after it for
// simple_net bf16, the highest curve, on an axis up to niceMax(5%) = 10% (5.000000000000001 of
// 1% rounds up), over the 16 steps.
// The page opens with the answer, and its summary fits a 1280-pixel window: neither the table's
// wrapper nor the page scrolls sideways there. In a 900-pixel window the table scrolls.
TEST_F(HtmlInBrowser, TheAnswerComesFirstAndTheSummaryFitsA1280PixelWindow) {
  std::string html = ampbench::reports::render_html(ampbench::testing::make_sample_report());
  html.insert(html.rfind("</body>"),
              "<script>addEventListener('load', function () { var w = document.querySelector('table.summary')"
              ".parentNode, page = document.documentElement; document.body.setAttribute('data-overflow', "
              "String(w.scrollWidth - w.clientWidth) + ' ' + String(page.scrollWidth - page.clientWidth)); });"
              "</script>");
  const std::string dom = rendered_dom(dir_, html);
  EXPECT_NE(dom.find("data-overflow=\"0 0\""), std::string::npos) << dom.substr(dom.find("<body"), 300);
  EXPECT_LT(dom.find("<ul class=\"headline\">"), dom.find("<table class=\"summary\">"));
  EXPECT_LT(dom.find("data-chart=\"glance-time\""), dom.find("<table class=\"summary\">"));
  EXPECT_EQ(rendered_dom(dir_, html, 900).find("data-overflow=\"0 0\""), std::string::npos);
}

TEST_F(HtmlInBrowser, DivergenceCurveIsTheRelativeDifference) {
  const std::string dom = rendered_dom(dir_, ampbench::reports::render_html(ampbench::testing::make_sample_report()));
  const auto chart = dom.find("data-chart=\"divergence\"");
  ASSERT_NE(chart, std::string::npos);
  const auto end = dom.find("</figure>", chart);
  const std::string figure = dom.substr(chart, end - chart);
  // x = 64 + 420 * step / 16; y = 10 + 180 * (1 - v / 10%): step 0 -> (64, 190), step 2 -> (116.5, 100).
  const auto bf16 = figure.find("<title>bf16</title>");
  ASSERT_NE(bf16, std::string::npos) << figure;
  const auto path = figure.rfind("<path", bf16);
  const std::string d = figure.substr(path, bf16 - path);
  EXPECT_NE(d.find("d=\"M64.0 190.0 L116.5 100.0 L169.0 100.0 "), std::string::npos) << d;
  EXPECT_NE(figure.find("noise floor (FP32, data order reversed)"), std::string::npos);
}

// Older reports have no numerics pass: the timed steps' losses stand in, one chart per workload.
TEST_F(HtmlInBrowser, WithoutANumericsPassTheTimedLossesAreCharted) {
  auto report = ampbench::testing::make_sample_report();
  for (auto& cell : report.cells) {
    cell.numerics.reset();
    cell.divergence.reset();
  }
  report.cells[2].numerics = ampbench::testing::sample_numerics(0.0, 1.0);
  report.cells[2].numerics->error = "numerics pass: the worker was killed by signal 9";
  const std::string dom = rendered_dom(dir_, ampbench::reports::render_html(report));
  EXPECT_NE(dom.find("data-status=\"ok\""), std::string::npos) << dom.substr(0, 4000);
  EXPECT_EQ(count(dom, "data-chart=\"loss\""), 2);
  EXPECT_EQ(count(dom, "data-chart=\"divergence\""), 0);
  EXPECT_NE(dom.find("Numerics pass failed: simple_net/bf16/cpu: numerics pass: the worker was killed"),
            std::string::npos);
}

TEST_F(HtmlInBrowser, MeasuredTensorCoresAreCharted) {
  auto report = ampbench::testing::make_sample_report();
  report.cells[0].tensor_cores = {ampbench::reports::MeasurementStatus::kMeasured,
                                  "",
                                  {{"sm__pipe_tensor_op_hmma_cycles_active", 41.5, "percent", "cupti-range-profiler"}}};
  const std::string dom = rendered_dom(dir_, ampbench::reports::render_html(report));
  EXPECT_NE(dom.find("data-status=\"ok\""), std::string::npos);
  EXPECT_EQ(count(dom, "data-chart=\"tensor-cores\""), 1);
}

TEST_F(HtmlInBrowser, AScriptErrorIsCaught) {
  // The embedded data no longer has cells: the script throws a TypeError, and the check must see it.
  std::string html = ampbench::reports::render_html(ampbench::testing::make_sample_report());
  const auto start = html.find("<script type=\"application/json\" id=\"ampbench-data\">");
  const auto end = html.find("</script>", start);
  html.replace(start, end - start, "<script type=\"application/json\" id=\"ampbench-data\">{}");
  const std::string dom = rendered_dom(dir_, html);
  EXPECT_EQ(dom.find("data-status=\"ok\""), std::string::npos);
  EXPECT_NE(dom.find("data-status=\"error\""), std::string::npos) << dom.substr(0, 4000);
}

TEST_F(HtmlInBrowser, RendersAScreenshotOffline) {
  std::ofstream(dir_ / "report.html") << ampbench::reports::render_html(ampbench::testing::make_sample_report());
  auto argv = chromium(dir_);
  argv.push_back("--window-size=1280,2600");
  argv.push_back("--screenshot=" + (dir_ / "shot.png").string());
  argv.push_back("file://" + (dir_ / "report.html").string());
  const auto result = run_process(argv);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  std::ifstream png(dir_ / "shot.png", std::ios::binary);
  std::string signature(8, '\0');
  png.read(signature.data(), 8);
  EXPECT_EQ(signature, std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_GT(std::filesystem::file_size(dir_ / "shot.png"), 50'000u);  // a page with charts, not a blank one
}

TEST(HtmlReport, IsSelfContainedAndCannotBeBrokenByItsData) {
  auto report = ampbench::testing::make_sample_report();
  report.cells[4].error = "</script><script>alert(1)</script>";
  const std::string html = ampbench::reports::render_html(report);
  EXPECT_EQ(count(html, "http"), 1);  // the SVG namespace's name, never a fetch
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(count(html, "</script>"), 4);  // data, error trap, chart kit, charts: the error closed none
  EXPECT_NE(html.find("&lt;/script&gt;"), std::string::npos);
}

// A report with a time breakdown and findings shows both, escaped, and the charts still draw.
TEST_F(HtmlInBrowser, WhyAndTheBreakdownRender) {
  auto report = ampbench::testing::make_sample_report();
  report.cells[1].breakdown = ampbench::reports::TimeBreakdown{
      3,
      4e-3,
      {{ampbench::reports::matmul_category("float16"), 3e-3}, {{ampbench::reports::OpFamily::kCasts, {}}, 5e-4}},
      5e-4,
      "test",
      0.0,
      {},
      {{"aten::addmm", "float16", 3e-3}}};
  report.explanation = {
      {"casts-and-float32-ops", "simple_net/fp16/cpu/default", "Casts take <0.5 ms>.", {{"casts_s", 5e-4}}}};
  const std::string dom = rendered_dom(dir_, ampbench::reports::render_html(report));
  EXPECT_NE(dom.find("id=\"ampbench-render-status\" data-status=\"ok\""), std::string::npos) << dom.substr(0, 4000);
  EXPECT_EQ(count(dom, "<li data-finding=\"casts-and-float32-ops\">Casts take &lt;0.5 ms&gt;.</li>"), 1);
  EXPECT_EQ(count(dom, "<table class=\"breakdown\">"), 1);
  EXPECT_NE(dom.find("<td>3.000 ms (75.0%)</td>"), std::string::npos);
}

// A run of two ranks: the data parallel table, and the charts keep each 2-rank cell apart from its
// 1-rank twin (one step-time chart per ranks; on the comparison page, one speedup trend each).
TEST_F(HtmlInBrowser, DataParallelRendersApartFromOneRank) {
  auto report = ampbench::testing::make_data_parallel_report();
  report.cells[1].speedup_vs_fp32 = ampbench::reports::Ratio{0.3, 0.29, 0.31};
  std::string dom = rendered_dom(dir_, ampbench::reports::render_html(report));
  EXPECT_NE(dom.find("id=\"ampbench-render-status\" data-status=\"ok\""), std::string::npos) << dom.substr(0, 4000);
  EXPECT_EQ(count(dom, "<table class=\"data-parallel\">"), 1);
  EXPECT_EQ(count(dom, "<td>simple_net/fp16/cpu/default/ranks=2</td><td>gloo</td>"), 1);
  EXPECT_EQ(count(dom, "<th>ranks</th>"), 1);
  EXPECT_EQ(count(dom, "data-chart=\"step-time\""), 2);
  EXPECT_NE(dom.find("Step time, simple_net @ cpu ranks=2 (95% CI)"), std::string::npos);
  const auto series = ampbench::reports::build_run_series({{"a.json", report}, {"b.json", report}}, {});
  dom = rendered_dom(dir_, ampbench::reports::render_series_html(series));
  EXPECT_NE(dom.find("id=\"ampbench-render-status\" data-status=\"ok\""), std::string::npos) << dom.substr(0, 4000);
  EXPECT_EQ(count(dom, "data-chart=\"trend-speedup\""), 2);
}

// The comparison page of three runs (the sample report, the same, then one with a cell 1.5x slower,
// one missing and another torch): the script finishes, every chart is drawn, rows carry verdicts.
ampbench::reports::RunSeries three_runs() {
  using ampbench::testing::make_sample_report;
  auto third = ampbench::testing::with_slower_steps(make_sample_report(), 0, 1.5);
  third.cells.erase(third.cells.begin() + 1);
  third.environment.torch_version = "2.16.0";
  return ampbench::reports::build_run_series(
      {{"base.json", make_sample_report()}, {"second.json", make_sample_report()}, {"third.json", third}}, {});
}

TEST_F(HtmlInBrowser, ComparisonPageDrawsEveryChart) {
  const std::string dom = rendered_dom(dir_, ampbench::reports::render_series_html(three_runs()));
  EXPECT_NE(dom.find("id=\"ampbench-render-status\" data-status=\"ok\""), std::string::npos) << dom.substr(0, 4000);
  // The sample's six cells, one failed in every run: five compared, the missing one left out.
  EXPECT_EQ(count(dom, "data-chart=\"change\""), 1);
  EXPECT_EQ(count(dom, "class=\"change-point\""), 4);
  EXPECT_EQ(count(dom, "class=\"threshold\""), 2);
  EXPECT_EQ(count(dom, "data-chart=\"trend-step-time\""), 5);  // every cell that ran somewhere
  EXPECT_EQ(count(dom, "data-chart=\"trend-speedup\""), 2);    // per workload with AMP speedups
  EXPECT_EQ(count(dom, "class=\"baseline-mark\""), 5 + 2);
  // simple_net/fp32 in 3 runs, fp16 in 2, bf16 3, simple_cnn fp32 3, bf16 3; speedups 2 + 3 + 3.
  EXPECT_EQ(count(dom, "class=\"trend-point\""), 14 + 8);
  EXPECT_EQ(count(dom, "<tr data-verdict=\"regressed\">"), 1);
  EXPECT_EQ(count(dom, "<tr data-verdict=\"missing\">"), 1);
  EXPECT_EQ(count(dom, "<tr data-verdict=\"not compared\">"), 1);  // failed in both
  EXPECT_NE(dom.find("<table class=\"differences\">"), std::string::npos);
  EXPECT_NE(dom.find("<table class=\"trend\">"), std::string::npos);
  EXPECT_EQ(dom.find("<p class=\"gate\""), std::string::npos);  // compare's page judges nothing
}

TEST_F(HtmlInBrowser, ComparisonPageWithNothingComparableStillRenders) {
  auto failed = ampbench::testing::make_sample_report();
  for (auto& cell : failed.cells) {
    cell.status = ampbench::reports::CellStatus::kFailed;
    cell.error = "out of memory";
  }
  const auto series = ampbench::reports::build_run_series(
      {{"base.json", ampbench::testing::make_sample_report()}, {"cur.json", failed}}, {});
  const std::string dom = rendered_dom(dir_, ampbench::reports::render_series_html(series, true));
  EXPECT_NE(dom.find("id=\"ampbench-render-status\" data-status=\"ok\""), std::string::npos) << dom.substr(0, 4000);
  EXPECT_EQ(count(dom, "data-chart=\"change-none\""), 1);
  EXPECT_NE(dom.find("<p class=\"gate\" data-passed=\"false\">FAIL: "), std::string::npos);
  EXPECT_EQ(count(dom, "data-chart=\"trend-step-time\""), 5);  // the baseline's points alone
}

// The history page: a chart per series with a point and whisker per run, each change point marked
// before its first run (the machine's apart), a run the host spent in another state hollow; the cell name escaped in
// the table, and drawn as text by the script.
TEST_F(HtmlInBrowser, HistoryPageDrawsEverySeriesAndChangePoint) {
  const std::string dom =
      rendered_dom(dir_, ampbench::reports::render_history_html(ampbench::testing::sample_history()));
  EXPECT_NE(dom.find("id=\"ampbench-render-status\" data-status=\"ok\""), std::string::npos) << dom.substr(0, 4000);
  EXPECT_EQ(count(dom, "data-chart=\"history-series\""), 2);
  EXPECT_EQ(count(dom, "class=\"history-point\""), 10);
  EXPECT_EQ(count(dom, "class=\"history-point other-host-state\""), 2);  // hollow: left out of the search
  EXPECT_EQ(count(dom, "class=\"whisker\""), 12);
  EXPECT_EQ(count(dom, "class=\"change-point-mark\""), 2);
  EXPECT_EQ(count(dom, "class=\"change-point-mark machine\""), 1);  // drawn grey, not a commit to bisect
  EXPECT_NE(dom.find("change point at run 5: +8.0% (1 -&gt; 1.08, p 1e-05), commits c4..c5"), std::string::npos);
  EXPECT_NE(dom.find("<table class=\"history\">"), std::string::npos);
  EXPECT_NE(dom.find("<td>12.3% within 10 runs</td>"), std::string::npos) << dom.substr(0, 4000);
  EXPECT_NE(dom.find("net&lt;1&gt;/bf16/cpu/default, step_time_per_probe (95% CI)"), std::string::npos);
}

}  // namespace
