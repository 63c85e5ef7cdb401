// The HTML report in a real browser (headless Chromium): it renders to a screenshot, its script
// finishes without an error (the page marks #ampbench-render-status with data-status="ok" only
// then), and every chart is in the DOM. A page whose script throws is caught by the same check.
#include "ampbench/reports/html.h"

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

// The page's DOM after its scripts ran.
std::string rendered_dom(const ScratchDir& dir, const std::string& html) {
  std::ofstream(dir / "report.html") << html;
  auto argv = chromium(dir);
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
  EXPECT_EQ(count(dom, "data-chart=\"loss\""), 2);
  EXPECT_EQ(count(dom, "data-chart=\"scale\""), 1);
  EXPECT_EQ(count(dom, "data-chart=\"tensor-cores-unavailable\""), 1);
  EXPECT_EQ(count(dom, "class=\"whisker\""), 5 + 3);       // step-time bars + speedup bars
  EXPECT_EQ(count(dom, "class=\"skipped-step\""), 2);      // steps 3 and 4
  EXPECT_EQ(count(dom, "class=\"reference\""), 1);         // speedup 1.0x line
  EXPECT_GE(count(dom, "<path class=\"series\""), 5 + 1);  // loss curves + scale
}

TEST_F(HtmlInBrowser, MeasuredTensorCoresAreCharted) {
  auto report = ampbench::testing::make_sample_report();
  report.cells[0].tensor_cores = {
      "measured", "", {{"sm__pipe_tensor_op_hmma_cycles_active", 41.5, "percent", "cupti-range-profiler"}}};
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
  EXPECT_EQ(count(html, "</script>"), 3);  // data, error trap, charts: the error did not close one
  EXPECT_NE(html.find("&lt;/script&gt;"), std::string::npos);
}

}  // namespace
