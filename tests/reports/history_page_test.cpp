// The history's pages from a `history show` document: the testbed and its facts, one row per series
// with its last value, the step its search finds (9 times in 10) and its change points (magnitude
// and commit range); an empty history says so; the JSON carries the same texts. (The HTML page is
// drawn in headless Chromium: html_browser_test.cpp.)
#include "ampbench/reports/history_show.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "sample_report.h"

namespace {

using ampbench::reports::render_history_markdown;

TEST(HistoryPage, MarkdownListsEverySeriesWithItsChangePoints) {
  const auto page = render_history_markdown(ampbench::testing::sample_history());
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

TEST(HistoryPage, TheJsonCarriesThePagesTexts) {
  const auto shown = nlohmann::json::parse(ampbench::reports::render_history_json(ampbench::testing::sample_history()));
  EXPECT_EQ(shown["schema"], "ampbench.history-show/1");
  const auto& series = shown["testbeds"][0]["series"][1];
  EXPECT_EQ(series["unit"], "s");
  EXPECT_EQ(series["last"], "1.92 ms [1.882 ms, 1.958 ms]");
  EXPECT_EQ(series["detectable"], "12.3%");
  EXPECT_EQ(series["runs"].size(), 6u);
  EXPECT_TRUE(series["runs"][2]["other_host_state"].get<bool>());
  EXPECT_EQ(series["change_points"][0]["description"], "-10.5% (2 ms -> 1.79 ms, p 0.0001)");
  EXPECT_EQ(series["change_points"][0]["commits"], "c1..c2");
  EXPECT_EQ(series["change_points"][1]["attribution"], "");
  EXPECT_TRUE(shown["testbeds"][0]["series"][0]["detectable_change"].is_null());
}

TEST(HistoryPage, OneRunIsOneRun) {
  auto shown = ampbench::testing::sample_history();
  auto& testbed = shown.testbeds[0];
  testbed.runs = 1;
  for (auto& series : testbed.series) {
    series.runs.resize(1);
    series.other_host_state_runs = 0;
  }
  const auto page = render_history_markdown(shown);
  EXPECT_NE(page.find("(fingerprint 0123abcd0123abcd, 1 run)"), std::string::npos) << page;
  EXPECT_NE(page.find("| step_time_s | 1 run | "), std::string::npos) << page;
  EXPECT_EQ(page.find("1 runs"), std::string::npos) << page;
}

TEST(HistoryPage, AnEmptyHistorySaysSo) {
  const ampbench::reports::HistoryShow empty;
  EXPECT_NE(render_history_markdown(empty).find("No runs stored."), std::string::npos);
  EXPECT_NE(ampbench::reports::render_history_html(empty).find("No runs stored."), std::string::npos);
}

}  // namespace
