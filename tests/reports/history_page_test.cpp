// The history's Markdown page from a `history show` document: the testbed and its facts, one row
// per series with its last value, the step its search finds (9 times in 10) and its change points
// (magnitude and commit range); an empty history says so. (The HTML page is drawn in headless
// Chromium: html_browser_test.cpp.)
#include "ampbench/reports/history_page.h"

#include <gtest/gtest.h>

#include "sample_report.h"

namespace {

using ampbench::reports::render_history_markdown;

TEST(HistoryPage, MarkdownListsEverySeriesWithItsChangePoints) {
  const auto page = render_history_markdown(ampbench::testing::sample_history_document());
  EXPECT_NE(page.find("### Testbed cpu-test-0123abcd (fingerprint 0123abcd0123abcd, 6 runs)"), std::string::npos)
      << page;
  EXPECT_NE(page.find("- cpu_model: Test <CPU>\n"), std::string::npos) << page;
  EXPECT_NE(page.find("| net<1>/bf16/cpu/default | step_time_per_probe | 6 runs (1 in another state of the host, left "
                      "out) | 1.08 [1.058, 1.102] |  | run 5: +8.0% (1 -> 1.08, p 1e-05), commits c4..c5 |"),
            std::string::npos)
      << page;
  // A change the probe moved with says whose it is; the code's change beside it does not.
  EXPECT_NE(
      page.find(
          "| net<1>/bf16/cpu/default | step_time_s | 6 runs (1 in another state of the host, left out) | 1.92 ms "
          "[1.882 ms, 1.958 ms] | 12.3% within 10 runs | run 2: -10.5% (2 "
          "ms -> 1.79 ms, p 0.0001) (the machine's: the probe moved with it, the step time per probe only "
          "+0.5% (p 0.62) over the same runs), commits c1..c2; run 5: +8.0% (1.78 ms -> 1.92 ms, p 1e-05), commits "
          "c4..c5 |"),
      std::string::npos)
      << page;
}

TEST(HistoryPage, OneRunIsOneRun) {
  auto shown = ampbench::testing::sample_history_document();
  auto& testbed = shown["testbeds"][0];
  testbed["runs"] = 1;
  for (auto& series : testbed["series"]) {
    series["runs"] = nlohmann::json::array({series["runs"][0]});
    series["other_host_state_runs"] = 0;
  }
  const auto page = render_history_markdown(shown);
  EXPECT_NE(page.find("(fingerprint 0123abcd0123abcd, 1 run)"), std::string::npos) << page;
  EXPECT_NE(page.find("| step_time_s | 1 run | "), std::string::npos) << page;
  EXPECT_EQ(page.find("1 runs"), std::string::npos) << page;
}

TEST(HistoryPage, AnEmptyHistorySaysSo) {
  const nlohmann::json empty = {{"schema", "ampbench.history-show/1"}, {"testbeds", nlohmann::json::array()}};
  EXPECT_NE(render_history_markdown(empty).find("No runs stored."), std::string::npos);
  EXPECT_NE(ampbench::reports::render_history_html(empty).find("No runs stored."), std::string::npos);
}

}  // namespace
