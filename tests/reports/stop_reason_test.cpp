// Why the workers stopped: the counts, the sentence report.json states them in, the sentence read
// back (older reports have only it), and a report whose sentence and counts disagree refused.
#include <gtest/gtest.h>

#include "ampbench/reports/google_benchmark.h"
#include "ampbench/reports/report_json.h"
#include "ampbench/reports/stop_reason.h"
#include "sample_report.h"

namespace {

using namespace ampbench::reports;

using ampbench::testing::report_read_error;

TEST(StopReasons, EveryNameReadsBackAsItsReason) {
  for (const auto reason : kStopReasons) EXPECT_EQ(stop_reason_named(to_string(reason)), reason);
  EXPECT_EQ(stop_reason_named("precision"), std::nullopt);
}

TEST(StopReasons, TheSentenceNamesTheReasonAloneOrEachWithItsCount) {
  EXPECT_EQ(describe({}), "");
  EXPECT_EQ(describe({{StopReason::kPrecisionReached, 5}}), "precision reached");
  EXPECT_EQ(describe({{StopReason::kPrecisionReached, 2}, {StopReason::kTimeCap, 3}}),
            "time cap in 3 of 5 workers, precision reached in 2");
  // A tie keeps the reasons' own order.
  EXPECT_EQ(describe({{StopReason::kStepCap, 1}, {StopReason::kTimeCap, 1}, {StopReason::kPrecisionReached, 2}}),
            "precision reached in 2 of 4 workers, step cap in 1, time cap in 1");
}

TEST(StopReasons, ASentenceGivesBackTheCountsItDescribes) {
  const StopReasonCounts three{{StopReason::kStepCap, 1}, {StopReason::kTimeCap, 2}, {StopReason::kEveryModeFailed, 4}};
  EXPECT_EQ(stop_reasons_described(describe(three)), three);
  EXPECT_EQ(stop_reasons_described("time cap"), (StopReasonCounts{{StopReason::kTimeCap, 1}}));
  EXPECT_EQ(stop_reasons_described(""), StopReasonCounts{});
  // Not such a sentence: an unknown reason, a wrong total, a count of 0, the order changed, a reason twice.
  for (const char* text : {"out of time", "time cap in 3 of 4 workers, step cap in 2", "time cap in 0 of 0 workers",
                           "step cap in 1 of 3 workers, time cap in 2", "time cap in 1 of 2 workers, time cap in 1",
                           "time cap in 2 of 3 workers, step cap in 1, "}) {
    EXPECT_EQ(stop_reasons_described(text), std::nullopt) << text;
  }
}

TEST(StopReasons, AReportKeepsTheCountsAndRefusesASentenceThatSaysOtherwise) {
  auto report = ampbench::testing::make_sample_report();
  report.cells[0].throughput.stop_reasons = {{StopReason::kTimeCap, 3}, {StopReason::kPrecisionReached, 2}};
  nlohmann::json json = report;
  auto& throughput = json["cells"][0]["throughput"];
  EXPECT_EQ(throughput["stop_reason"], "time cap in 3 of 5 workers, precision reached in 2");
  EXPECT_EQ(parse_report_or_google_benchmark_text(json.dump(), "r.json").cells[0].throughput.stop_reasons,
            report.cells[0].throughput.stop_reasons);

  throughput["stop_reason"] = "precision reached";
  EXPECT_EQ(report_read_error(json),
            "r.json: cells[0].throughput.stop_reason: \"precision reached\" does not say what stop_reasons count "
            "(\"time cap in 3 of 5 workers, precision reached in 2\")");
  throughput["stop_reason"] = "time cap in 3 of 5 workers, precision reached in 2";
  throughput["stop_reasons"]["out of time"] = 1;
  EXPECT_EQ(report_read_error(json),
            "r.json: cells[0].throughput.stop_reasons.out of time: not a stop reason (precision "
            "reached, step cap, time cap, every mode failed)");
  throughput["stop_reasons"].erase("out of time");
  throughput["stop_reasons"]["time cap"] = 0;
  EXPECT_NE(report_read_error(json).find("cells[0].throughput.stop_reasons.time cap"), std::string::npos);
}

TEST(StopReasons, AnOlderReportsSentenceAloneGivesTheCounts) {
  nlohmann::json json = ampbench::testing::make_sample_report();
  auto& throughput = json["cells"][0]["throughput"];
  throughput.erase("stop_reasons");
  throughput["stop_reason"] = "time cap in 2 of 3 workers, step cap in 1";
  EXPECT_EQ(parse_report_or_google_benchmark_text(json.dump(), "r.json").cells[0].throughput.stop_reasons,
            (StopReasonCounts{{StopReason::kTimeCap, 2}, {StopReason::kStepCap, 1}}));
  throughput["stop_reason"] = "ran out of patience";
  EXPECT_EQ(report_read_error(json),
            "r.json: cells[0].throughput.stop_reason: \"ran out of patience\" names no stop reason and count");
}

}  // namespace
