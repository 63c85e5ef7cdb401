// `ampbench report`, `compare` and `check` through the real binary: outputs, exit codes (0 pass,
// 1 regression, 2 bad input), one-line errors naming the file or field, and no output file after
// bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "ampbench/reports/report_json.h"
#include "sample_report.h"
#include "support/cli_expectations.h"
#include "support/process.h"
#include "support/scratch_dir.h"

namespace {

using ampbench::testing::make_sample_report;
using ampbench::testing::ProcessResult;
using ampbench::testing::run_process;
using ampbench::testing::ScratchDir;

ProcessResult ampbench_cli(std::vector<std::string> args) {
  args.insert(args.begin(), AMPBENCH_CLI);
  return run_process(args);
}

void write_text(const std::filesystem::path& path, const std::string& text) { std::ofstream(path) << text; }

// A bad input: exit 2, the error and the usage line only, the culprit named, and nothing written.
void expect_bad_input(const ProcessResult& result, const std::string& culprit, const ScratchDir& dir,
                      const std::vector<std::string>& not_written) {
  ampbench::testing::expect_bad_input(result, culprit);
  for (const auto& name : not_written) EXPECT_FALSE(std::filesystem::exists(dir / name)) << name;
}

class ReportCommands : public ::testing::Test {
 protected:
  void SetUp() override {
    good_ = (dir_ / "good.json").string();
    ampbench::reports::write_report_atomically(make_sample_report(), good_);
  }
  std::string bad_report(const std::string& name, const std::string& text) {
    write_text(dir_ / name, text);
    return (dir_ / name).string();
  }
  // The report command on a broken file must name `culprit` and write neither output.
  void expect_report_refuses(const std::string& path, const std::string& culprit) {
    const auto result =
        ampbench_cli({"report", path, "--md", (dir_ / "out.md").string(), "--html", (dir_ / "out.html").string()});
    expect_bad_input(result, culprit, dir_, {"out.md", "out.html"});
  }
  ScratchDir dir_;
  std::string good_;
};

TEST_F(ReportCommands, ReportPrintsTheTableAndWritesMarkdownAndHtml) {
  const auto result =
      ampbench_cli({"report", good_, "--md", (dir_ / "r.md").string(), "--html", (dir_ / "r.html").string()});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("step time (95% CI)"), std::string::npos) << result.out;
  EXPECT_GT(std::filesystem::file_size(dir_ / "r.md"), 500u);
  EXPECT_GT(std::filesystem::file_size(dir_ / "r.html"), 5000u);
}

TEST_F(ReportCommands, SchemaVersionMismatchIsBadInput) {
  auto json = nlohmann::json(make_sample_report());
  json["schema"] = "ampbench.report/9";
  expect_report_refuses(bad_report("v9.json", json.dump()),
                        "schema: expected \"ampbench.report/2\" or \"ampbench.report/1\", got \"ampbench.report/9\"");
}

TEST_F(ReportCommands, TruncatedJsonIsBadInput) {
  const std::string text = ampbench::reports::report_to_text(make_sample_report());
  expect_report_refuses(bad_report("cut.json", text.substr(0, text.size() / 3)), "cut.json: not valid JSON");
}

TEST_F(ReportCommands, WrongTypesAreBadInput) {
  auto json = nlohmann::json(make_sample_report());
  json["cells"][2]["throughput"]["step_time_s"]["median"] = "fast";
  expect_report_refuses(bad_report("typed.json", json.dump()),
                        "typed.json: cells[2].throughput.step_time_s.median: expected a number or null, got string");
}

TEST_F(ReportCommands, NanAndInfinityLiteralsAreBadInput) {
  std::string text = nlohmann::json(make_sample_report()).dump();
  std::string with_nan = text;
  with_nan.replace(with_nan.find("\"ratio_to_floor\":") + 17, 1, "NaN,\"x\":0");
  expect_report_refuses(bad_report("nan.json", with_nan), "nan.json: not valid JSON");
  std::string with_infinity = text;
  with_infinity.replace(with_infinity.find("\"final_floor\":") + 14, 1, "Infinity,\"y\":0");
  expect_report_refuses(bad_report("inf.json", with_infinity), "inf.json: not valid JSON");
}

TEST_F(ReportCommands, HugeFilesAreBadInput) {
  const auto path = bad_report("huge.json", "{");
  std::filesystem::resize_file(path, ampbench::reports::kMaxReportBytes + 1);  // sparse
  expect_report_refuses(path, "huge.json: too large for a report");
}

TEST_F(ReportCommands, MissingFileAndUnwritableOutputAreBadInput) {
  expect_report_refuses((dir_ / "none.json").string(), "none.json: no such file");
  const auto result = ampbench_cli({"report", good_, "--md", (dir_ / "no-such-dir" / "r.md").string()});
  expect_bad_input(result, "--md " + (dir_ / "no-such-dir" / "r.md").string() + ": cannot write", dir_,
                   {"no-such-dir"});
}

TEST_F(ReportCommands, CheckPassesOnTheSameReport) {
  const auto result = ampbench_cli({"check", "--baseline", good_, "--current", good_});
  EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
  EXPECT_NE(result.out.find("PASS: 0 of 6 cells regressed"), std::string::npos) << result.out;
}

TEST_F(ReportCommands, CheckFailsOnARegressionAndNamesIt) {
  const auto slower = ampbench::testing::with_slower_steps(make_sample_report(), 0, 1.2);
  const auto current = (dir_ / "slower.json").string();
  ampbench::reports::write_report_atomically(slower, current);
  const auto result =
      ampbench_cli({"check", "--baseline", good_, "--current", current, "--md", (dir_ / "check.md").string()});
  EXPECT_EQ(result.exit_code, 1) << result.out << result.err;
  EXPECT_NE(result.out.find("REGRESSED  simple_net/fp32/cpu/default\n    step time +20.0%"), std::string::npos)
      << result.out;
  EXPECT_TRUE(std::filesystem::exists(dir_ / "check.md"));
  EXPECT_EQ(ampbench_cli({"check", "--baseline", good_, "--current", current, "--max-slowdown", "25%"}).exit_code, 0);
}

// --format json: the same verdicts for a program, each reason with a stable id beside its words,
// and the same exit code; an unknown format is refused before any report is read.
TEST_F(ReportCommands, CheckPrintsItsVerdictsAsJsonForAProgram) {
  const auto slower = ampbench::testing::with_slower_steps(make_sample_report(), 0, 1.2);
  const auto current = (dir_ / "slower.json").string();
  ampbench::reports::write_report_atomically(slower, current);
  const auto result = ampbench_cli({"check", "--baseline", good_, "--current", current, "--format", "json"});
  EXPECT_EQ(result.exit_code, 1) << result.out << result.err;
  const auto json = nlohmann::json::parse(result.out);
  EXPECT_EQ(json["schema"], "ampbench.check/1");
  EXPECT_EQ(json["verdict"], "fail");
  EXPECT_EQ(json["regressed"], 1);
  EXPECT_EQ(json["thresholds"]["max_slowdown"], 0.05);
  EXPECT_TRUE(json["thresholds"]["max_divergence"].is_null());
  const auto& first = json["cells"][0];
  EXPECT_EQ(first["cell"], "simple_net/fp32/cpu/default");
  EXPECT_EQ(first["verdict"], "regressed");
  EXPECT_EQ(first["reasons"][0]["id"], "step_time_regressed") << first.dump();
  EXPECT_EQ(first["reasons"][0]["text"].get<std::string>().rfind("step time +20.0%", 0), 0u) << first.dump();
  EXPECT_EQ(json["cells"].size(), 6u);
  expect_bad_input(ampbench_cli({"check", "--baseline", good_, "--current", current, "--format", "yaml", "--md",
                                 (dir_ / "c.md").string()}),
                   "--format: expected 'text' or 'json', got 'yaml'", dir_, {"c.md"});
}

TEST_F(ReportCommands, CheckRefusesOtherHardwareUnlessAllowed) {
  auto other = make_sample_report();
  other.environment.cpu_model = "Another CPU";
  const auto current = (dir_ / "other.json").string();
  ampbench::reports::write_report_atomically(other, current);
  const auto refused =
      ampbench_cli({"check", "--baseline", good_, "--current", current, "--md", (dir_ / "c.md").string()});
  expect_bad_input(refused, "different environments (CPU \"Test CPU @ 2.00GHz\" vs \"Another CPU\")", dir_, {"c.md"});
  EXPECT_EQ(ampbench_cli({"check", "--baseline", good_, "--current", current, "--allow-env-mismatch"}).exit_code, 0);
}

// Through the binary: exit 2 and one line naming both world sizes (check_thresholds_test.cpp has
// the rest, in process); with the flag the check runs.
TEST_F(ReportCommands, CheckRefusesOtherWorldSizesUnlessAllowed) {
  const auto current = (dir_ / "ranks.json").string();
  ampbench::reports::write_report_atomically(ampbench::testing::make_data_parallel_report(), current);
  const auto refused =
      ampbench_cli({"check", "--baseline", good_, "--current", current, "--md", (dir_ / "c.md").string()});
  expect_bad_input(
      refused, "different world sizes (" + good_ + " 1 rank, " + current + " 2 ranks); pass --allow-different-ranks",
      dir_, {"c.md"});
  expect_bad_input(ampbench_cli({"compare", good_, current}), "pass --allow-different-ranks", dir_, {});
  const auto allowed = ampbench_cli({"compare", good_, current, "--allow-different-ranks"});
  EXPECT_EQ(allowed.exit_code, 0) << allowed.err;
  EXPECT_NE(allowed.out.find("simple_net/fp32/cpu/default/ranks=2"), std::string::npos) << allowed.out;
}

// Reports of two different suites: the gate would judge nothing, so it refuses instead of passing.
TEST_F(ReportCommands, CheckRefusesReportsThatShareNoCell) {
  auto other = make_sample_report();
  for (auto& cell : other.cells) cell.preset = "large";
  const auto current = (dir_ / "other_suite.json").string();
  ampbench::reports::write_report_atomically(other, current);
  expect_bad_input(ampbench_cli({"check", "--baseline", good_, "--current", current, "--md", (dir_ / "c.md").string()}),
                   "the reports share no cell (simple_net/fp32/cpu/default and 5 more in --baseline, "
                   "simple_net/fp32/cpu/large and 5 more in --current): nothing to judge",
                   dir_, {"c.md"});
  // One workload in common is enough to judge: the other cells are listed as missing, as before.
  for (auto& cell : other.cells) {
    if (cell.workload == other.cells[0].workload) cell.preset = "default";
  }
  ampbench::reports::write_report_atomically(other, current);
  const auto one = ampbench_cli({"check", "--baseline", good_, "--current", current});
  EXPECT_EQ(one.exit_code, 0) << one.out << one.err;
  EXPECT_NE(one.out.find("PASS: 0 of "), std::string::npos) << one.out;
}

TEST_F(ReportCommands, CheckNamesBadThresholdsAndInputs) {
  expect_bad_input(ampbench_cli({"check", "--baseline", good_, "--current", good_, "--max-slowdown", "fast"}),
                   "--max-slowdown: expected a non-negative fraction", dir_, {});
  expect_bad_input(ampbench_cli({"check", "--baseline", good_, "--current", good_, "--max-memory-growth", "5"}),
                   "--max-memory-growth: '5' would mean 500%; write 5% for 5 percent", dir_, {});
  expect_bad_input(ampbench_cli({"check", "--baseline", good_, "--current", good_, "--alpha", "2"}), "--alpha", dir_,
                   {});
  expect_bad_input(ampbench_cli({"check", "--baseline", (dir_ / "none.json").string(), "--current", good_}),
                   "--baseline " + (dir_ / "none.json").string() + ": no such file", dir_, {});
}

TEST_F(ReportCommands, CompareWritesStrictJson) {
  const auto copy = (dir_ / "copy.json").string();
  std::filesystem::copy_file(good_, copy);
  const auto result = ampbench_cli({"compare", good_, copy, "--format", "json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out.find("NaN"), std::string::npos);
  const auto json = nlohmann::json::parse(result.out);
  EXPECT_EQ(json["schema"], "ampbench.comparison/1");
  EXPECT_EQ(json["cells"].size(), 6u);
  EXPECT_EQ(json["cells"][0]["runs"].size(), 2u);
  EXPECT_EQ(ampbench_cli({"compare", good_, copy, "--format", "markdown"}).out.rfind("### ampbench compare", 0), 0u);
}

// Three runs: the text has the trend, --md and --html are written, and the thresholds are check's
// flags (a 60% slowdown allowed turns the regression into "unchanged").
TEST_F(ReportCommands, CompareReadsManyRunsAndWritesMarkdownAndHtml) {
  const auto slower = ampbench::testing::with_slower_steps(make_sample_report(), 0, 1.5);
  const auto second = (dir_ / "second.json").string();
  const auto third = (dir_ / "third.json").string();
  ampbench::reports::write_report_atomically(make_sample_report(), second);
  ampbench::reports::write_report_atomically(slower, third);
  const auto md = (dir_ / "cmp.md").string();
  const auto html = (dir_ / "cmp.html").string();
  const auto result = ampbench_cli({"compare", good_, second, third, "--md", md, "--html", html});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("Step time over the runs (as given)"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("+50.0% regressed"), std::string::npos) << result.out;
  std::stringstream page;
  page << std::ifstream(html).rdbuf();
  EXPECT_NE(page.str().find("<tr data-verdict=\"regressed\">"), std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(md));
  const auto by_time = ampbench_cli({"compare", good_, second, third, "--order", "time", "--format", "json"});
  ASSERT_EQ(by_time.exit_code, 0) << by_time.err;
  EXPECT_EQ(nlohmann::json::parse(by_time.out)["order"], "time");
  const auto lenient = ampbench_cli({"compare", good_, third, "--max-slowdown", "60%"});
  EXPECT_NE(lenient.out.find("simple_net/fp32/cpu/default  unchanged"), std::string::npos) << lenient.out;
}

TEST_F(ReportCommands, CompareRefusesTooFewReportsATwiceGivenFileAndMixedKinds) {
  const std::vector<std::string> outputs = {"--md", (dir_ / "cmp.md").string(), "--html", (dir_ / "cmp.html").string()};
  const auto with_outputs = [&outputs](std::vector<std::string> args) {
    args.insert(args.end(), outputs.begin(), outputs.end());
    return args;
  };
  expect_bad_input(ampbench_cli(with_outputs({"compare", good_})), "compare: needs at least two reports", dir_,
                   {"cmp.md", "cmp.html"});
  expect_bad_input(ampbench_cli(with_outputs({"compare", good_, good_})), good_ + " is given twice (reports 1 and 2)",
                   dir_, {"cmp.md", "cmp.html"});
  const auto same = (dir_ / "." / "good.json").string();
  std::filesystem::copy_file(good_, dir_ / "copy.json");
  expect_bad_input(ampbench_cli(with_outputs({"compare", good_, (dir_ / "copy.json").string(), same})),
                   same + " is given twice (reports 1 and 3)", dir_, {"cmp.md", "cmp.html"});
  const auto benchmark =
      bad_report("gb.json", R"({"context": {"num_cpus": 2}, "benchmarks": [{"name": "BM_A", "run_name": "BM_A",
                 "run_type": "iteration", "real_time": 1.0, "time_unit": "ms"}]})");
  expect_bad_input(ampbench_cli(with_outputs({"compare", good_, benchmark})),
                   benchmark + ": is Google Benchmark JSON but " + good_ + " is an ampbench report", dir_,
                   {"cmp.md", "cmp.html"});
}

TEST_F(ReportCommands, CheckWritesTheComparisonPageWithTheGatesVerdict) {
  const auto slower = ampbench::testing::with_slower_steps(make_sample_report(), 0, 1.5);
  const auto current = (dir_ / "current.json").string();
  ampbench::reports::write_report_atomically(slower, current);
  const auto html = (dir_ / "check.html").string();
  const auto result = ampbench_cli({"check", "--baseline", good_, "--current", current, "--html", html});
  EXPECT_EQ(result.exit_code, 1) << result.err;
  std::stringstream page;
  page << std::ifstream(html).rdbuf();
  EXPECT_NE(page.str().find("<h1>ampbench check</h1>"), std::string::npos);
  EXPECT_NE(page.str().find("<p class=\"gate\" data-passed=\"false\">FAIL: 1 of"), std::string::npos);
  expect_bad_input(ampbench_cli({"check", "--baseline", good_, "--current", current, "--html",
                                 (dir_ / "no-such-dir" / "check.html").string(), "--md", (dir_ / "check.md").string()}),
                   "--html", dir_, {"check.md"});
}

TEST_F(ReportCommands, GoogleBenchmarkJsonIsAcceptedByCompareAndCheck) {
  const auto benchmark = [&](const char* name, double scale) {
    auto runs = nlohmann::json::array();
    for (int i = 0; i < 12; ++i) {
      runs.push_back({{"name", "BM_Gemm"},
                      {"run_name", "BM_Gemm"},
                      {"run_type", "iteration"},
                      {"real_time", scale * (10.0 + i % 4 * 0.1)},
                      {"time_unit", "ms"}});
    }
    write_text(dir_ / name,
               nlohmann::json({{"context", {{"num_cpus", 2}, {"mhz_per_cpu", 2000}}}, {"benchmarks", runs}}).dump());
    return (dir_ / name).string();
  };
  const auto base = benchmark("base-gb.json", 1.0);
  const auto slower = benchmark("slow-gb.json", 1.3);
  EXPECT_EQ(ampbench_cli({"compare", base, slower}).exit_code, 0);
  const auto result = ampbench_cli({"check", "--baseline", base, "--current", slower});
  EXPECT_EQ(result.exit_code, 1) << result.out << result.err;
  EXPECT_NE(result.out.find("REGRESSED  BM_Gemm/benchmark/cpu"), std::string::npos) << result.out;
}

}  // namespace
