// `ampbench history` through the real binary: add, show (text and JSON), export and import, and
// bad input of every kind refused with one line naming the culprit, exit 2, nothing stored.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <fstream>
#include <iomanip>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "ampbench/reports/report_json.h"
#include "history_reports.h"
#include "postgres_test_database.h"
#include "support/cli_expectations.h"
#include "support/process.h"
#include "support/scratch_dir.h"

namespace {

using ampbench::testing::expect_bad_input;
using ampbench::testing::history_run;
using ampbench::testing::ProcessResult;
using ampbench::testing::read_bytes;
using ampbench::testing::run_process;
using ampbench::testing::ScratchDir;

ProcessResult ampbench_cli(std::vector<std::string> args) {
  args.insert(args.begin(), AMPBENCH_CLI);
  return run_process(args);
}

class HistoryCommand : public ::testing::Test {
 protected:
  std::string report(int run, double slowdown = 1.0) {
    const auto path = (dir_ / ("run" + std::to_string(run) + ".json")).string();
    ampbench::reports::write_report_atomically(history_run(run, slowdown, "simple_cnn"), path);
    return path;
  }
  std::string db() const { return (dir_ / "history.sqlite").string(); }
  ScratchDir dir_;
};

TEST_F(HistoryCommand, AddsShowsExportsAndImports) {
  std::vector<std::string> add = {"history", "add", "--db", db(), "--commit", "c0", "--branch", "main"};
  for (int run = 0; run < 12; ++run) add.push_back(report(run, run >= 6 ? 1.15 : 1.0));
  const auto added = ampbench_cli(add);
  ASSERT_EQ(added.exit_code, 0) << added.err;
  EXPECT_NE(added.out.find("run11.json: run 12 of testbed cpu-"), std::string::npos) << added.out;
  EXPECT_NE(added.out.find("change point: simple_cnn/bf16/cpu/default step_time_per_probe +15.0%"), std::string::npos)
      << added.out;

  const auto again = ampbench_cli({"history", "add", "--db", db(), report(0)});
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("already stored as run 1"), std::string::npos) << again.out;

  const auto text = ampbench_cli({"history", "show", "--db", db(), "--cell", "simple_cnn/bf16/cpu/default"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("(fingerprint "), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("simple_cnn/bf16/cpu/default step_time_per_probe: 12 runs"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("change point at run 7: +15.0%"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("commits c0..c0"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("simple_net/"), std::string::npos) << text.out;

  const auto json = ampbench_cli({"history", "show", "--db", db(), "--format", "json", "--figure", "step_time_s"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto shown = nlohmann::json::parse(json.out);
  ASSERT_EQ(shown["testbeds"].size(), 1u);
  const auto& series = shown["testbeds"][0]["series"];
  bool seen_change = false;
  for (const auto& one : series) {
    EXPECT_EQ(one["figure"], "step_time_s");
    EXPECT_EQ(one["runs"].size(), 12u);
    for (const auto& change : one["change_points"]) {
      EXPECT_EQ(one["cell"].get<std::string>().rfind("simple_cnn/", 0), 0u);
      EXPECT_EQ(change["run"], 7);
      seen_change = true;
    }
  }
  EXPECT_TRUE(seen_change);

  // The pages: Markdown and a self-contained HTML page of the same series (drawn in Chromium by
  // reports_html_test); an unwritable --html writes neither file and prints nothing.
  const auto md = dir_ / "history.md";
  const auto html = dir_ / "history.html";
  const auto pages = ampbench_cli({"history", "show", "--db", db(), "--cell", "simple_cnn/bf16/cpu/default", "--md",
                                   md.string(), "--html", html.string()});
  ASSERT_EQ(pages.exit_code, 0) << pages.err;
  EXPECT_NE(read_bytes(md).find("| simple_cnn/bf16/cpu/default | step_time_per_probe | 12 runs |"), std::string::npos)
      << read_bytes(md);
  EXPECT_NE(read_bytes(md).find("run 7: +15.0%"), std::string::npos) << read_bytes(md);
  EXPECT_NE(read_bytes(html).find("<script type=\"application/json\" id=\"ampbench-data\">"), std::string::npos);
  std::filesystem::remove(md);
  expect_bad_input(ampbench_cli({"history", "show", "--db", db(), "--md", md.string(), "--html",
                                 (dir_ / "missing" / "page.html").string()}),
                   "--html");
  EXPECT_FALSE(std::filesystem::exists(md));

  const auto exported = (dir_ / "runs.jsonl").string();
  ASSERT_EQ(ampbench_cli({"history", "export", "--db", db(), "--out", exported}).exit_code, 0);
  const auto copy = (dir_ / "copy.sqlite").string();
  const auto imported = ampbench_cli({"history", "import", exported, "--db", copy});
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  EXPECT_NE(imported.out.find("12 runs added"), std::string::npos) << imported.out;
  const auto reexported = ampbench_cli({"history", "export", "--db", copy});
  EXPECT_EQ(reexported.out, read_bytes(exported));
  const auto reimported = ampbench_cli({"history", "import", exported, "--db", copy});
  EXPECT_EQ(reimported.out, exported + ": 0 runs added, 12 already stored\n") << reimported.err;
}

// --testbed files a run under a name whatever its facts; where they differ from the testbed's,
// add says which (and still stores it), and check says so beside its verdict.
TEST_F(HistoryCommand, ARunFiledByNameUnderOtherFactsIsNoted) {
  const auto first = ampbench_cli({"history", "add", "--db", db(), "--testbed", "ci", report(0), report(1)});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_EQ(first.out.find("note:"), std::string::npos) << first.out;
  auto other = history_run(2, 1.0, "simple_cnn");
  other.environment.threads = 64;
  const auto path = (dir_ / "other.json").string();
  ampbench::reports::write_report_atomically(other, path);
  const auto checked = ampbench_cli({"history", "check", path, "--db", db(), "--testbed", "ci"});
  EXPECT_NE(checked.out.find("note: testbed ci was made from other facts (threads "), std::string::npos)
      << checked.out << checked.err;
  const auto added = ampbench_cli({"history", "add", "--db", db(), "--testbed", "ci", path});
  ASSERT_EQ(added.exit_code, 0) << added.err;
  EXPECT_NE(added.out.find("run 3 of testbed ci"), std::string::npos) << added.out;
  EXPECT_NE(added.out.find("  note: testbed ci was made from other facts (threads "), std::string::npos) << added.out;
  EXPECT_NE(added.out.find(", 64 in this run); its runs and this one are compared all the same"), std::string::npos)
      << added.out;
  // Imported into a history where testbed ci holds other facts, the run is filed there and noted.
  const auto exported = (dir_ / "runs.jsonl").string();
  ASSERT_EQ(ampbench_cli({"history", "export", "--db", db(), "--out", exported}).exit_code, 0);
  const auto copy = (dir_ / "copy.sqlite").string();
  ASSERT_EQ(ampbench_cli({"history", "add", "--db", copy, "--testbed", "ci", path}).exit_code, 0);
  const auto imported = ampbench_cli({"history", "import", exported, "--db", copy});
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  EXPECT_NE(imported.out.find(": 2 runs added, 1 already stored\n  note: testbed ci was made from other facts (threads "
                              "64 there, "),
            std::string::npos)
      << imported.out;
  EXPECT_NE(imported.out.find(" in this run); 2 runs of the file filed under it all the same\n"), std::string::npos)
      << imported.out;
}

TEST_F(HistoryCommand, ShowSaysWhatStepEachSeriesSearchFinds) {
  const auto show = [this](const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"history", "show", "--db", db(), "--cell", "simple_cnn/bf16/cpu/default"};
    args.insert(args.end(), extra.begin(), extra.end());
    return ampbench_cli(args);
  };
  std::vector<std::string> add = {"history", "add", "--db", db()};
  for (int run = 0; run < 3; ++run) add.push_back(report(run));
  ASSERT_EQ(ampbench_cli(add).exit_code, 0);
  // Three runs: fewer than a side of the search, nothing to say.
  for (const auto& series : nlohmann::json::parse(show({"--format", "json"}).out)["testbeds"][0]["series"]) {
    EXPECT_TRUE(series["detectable_change"].is_null()) << series;
  }
  EXPECT_EQ(show({}).out.find("finds a step of"), std::string::npos);

  add = {"history", "add", "--db", db()};
  for (int run = 3; run < 20; ++run) add.push_back(report(run));
  ASSERT_EQ(ampbench_cli(add).exit_code, 0);
  const auto text = show({}).out;
  for (const auto& series : nlohmann::json::parse(show({"--format", "json"}).out)["testbeds"][0]["series"]) {
    ASSERT_TRUE(series["detectable_change"].is_number()) << series;
    const double step = series["detectable_change"];
    EXPECT_GE(step, 0.05) << series;  // the search's least magnitude
    EXPECT_LT(step, 0.5) << series;
    EXPECT_EQ(series["detectable_within_runs"], 10);
    // What the text says is the same figure.
    std::ostringstream expected;
    expected << series["cell"].get<std::string>() << " " << series["figure"].get<std::string>() << ": 20 runs, last "
             << series["last"].get<std::string>() << ", finds a step of " << std::fixed << std::setprecision(1)
             << step * 100.0 << "% within 10 runs (9 times in 10)\n";
    EXPECT_NE(text.find(expected.str()), std::string::npos) << expected.str() << text;
  }
}

TEST_F(HistoryCommand, BadInputIsRefusedAndNothingIsStored) {
  const auto good = report(0);
  const auto broken = (dir_ / "broken.json").string();
  std::ofstream(broken) << "{\"schema\": 3}";
  // One bad report among good ones: nothing is stored, no database is made.
  expect_bad_input(ampbench_cli({"history", "add", "--db", db(), good, broken}), "broken.json");
  EXPECT_FALSE(std::filesystem::exists(db()));
  expect_bad_input(ampbench_cli({"history", "add", "--db", db(), (dir_ / "absent.json").string()}), "absent.json");
  expect_bad_input(ampbench_cli({"history", "show", "--db", db()}), "no such history database");
  EXPECT_FALSE(std::filesystem::exists(db()));
  // An export with a bad line is read whole before the database is opened: none is made.
  const auto lines = (dir_ / "bad.jsonl").string();
  std::ofstream(lines) << "\n{\"schema\": \"ampbench.history-run/1\", \"testbed\": 7}\n";
  expect_bad_input(ampbench_cli({"history", "import", lines, "--db", db()}),
                   "bad.jsonl line 2: testbed: expected an object, got number");
  EXPECT_FALSE(std::filesystem::exists(db()));

  ASSERT_EQ(ampbench_cli({"history", "add", "--db", db(), good}).exit_code, 0);
  expect_bad_input(ampbench_cli({"history", "show", "--db", db(), "--format", "xml"}), "--format");
  expect_bad_input(ampbench_cli({"history", "show", "--db", db(), "--figure", "speed"}),
                   "--figure: unknown figure 'speed'");
  expect_bad_input(ampbench_cli({"history", "show", "--db", db(), "--testbed", "nowhere"}), "--testbed: no testbed");
  expect_bad_input(ampbench_cli({"history", "show", "--db", db(), "--cell", "simple_cnn/bf16"}),
                   "--cell: no cell 'simple_cnn/bf16' in ");
  expect_bad_input(ampbench_cli({"history", "import", (dir_ / "none.jsonl").string(), "--db", db()}), "none.jsonl");
  expect_bad_input(ampbench_cli({"history"}), "history");
  // A PostgreSQL server that does not answer: named by host and port, never with the password.
  const auto unreachable = ampbench_cli({"history", "add", "--db", "postgresql://ci:s3cret@127.0.0.1:1/history", good});
  expect_bad_input(unreachable, "postgresql://127.0.0.1:1/history: cannot connect");
  EXPECT_EQ(unreachable.err.find("s3cret"), std::string::npos) << unreachable.err;

  // A database of a newer schema, or not ampbench's: named, and left as it was.
  sqlite3* handle = nullptr;
  ASSERT_EQ(sqlite3_open(db().c_str(), &handle), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(handle, "UPDATE ampbench_history SET value = '2' WHERE key = 'schema_version'", nullptr,
                         nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(handle);
  const auto before = read_bytes(db());
  expect_bad_input(ampbench_cli({"history", "add", "--db", db(), report(1)}), "history schema 2 is newer");
  EXPECT_EQ(read_bytes(db()), before);
  expect_bad_input(ampbench_cli({"history", "add", "--db", good, report(1)}), "run0.json: cannot read it");
}

TEST_F(HistoryCommand, CheckExitsZeroFourOrOneAndRefusesBadThresholds) {
  std::vector<std::string> add = {"history", "add", "--db", db()};
  for (int run = 0; run < 8; ++run) add.push_back(report(run));
  ASSERT_EQ(ampbench_cli(add).exit_code, 0);
  const auto same = ampbench_cli({"history", "check", report(50), "--db", db()});
  EXPECT_EQ(same.exit_code, 0) << same.out << same.err;
  EXPECT_NE(same.out.find("PASS: 0 of "), std::string::npos) << same.out;

  const auto slow = report(51, 1.2);
  const auto md = (dir_ / "verdict.md").string();
  const auto html = (dir_ / "verdict.html").string();
  const auto once = ampbench_cli({"history", "check", slow, "--db", db(), "--md", md, "--html", html});
  EXPECT_EQ(once.exit_code, 4) << once.out << once.err;
  EXPECT_NE(once.out.find("simple_cnn/bf16/cpu/default: needs confirmation"), std::string::npos) << once.out;
  EXPECT_NE(read_bytes(md).find("| simple_cnn/bf16/cpu/default | needs confirmation | 8 |"), std::string::npos)
      << read_bytes(md);
  // The page holds the same table as the Markdown, escaped, and the run's verdict first.
  const auto verdict_page = read_bytes(html);
  EXPECT_NE(verdict_page.find("data-verdict=\"needs confirmation\"><strong>NEEDS CONFIRMATION: 0 of "),
            std::string::npos)
      << verdict_page;
  EXPECT_NE(verdict_page.find("<tr><td>simple_cnn/bf16/cpu/default</td><td>needs confirmation</td><td>8</td>"),
            std::string::npos)
      << verdict_page;
  const auto twice = ampbench_cli({"history", "check", slow, "--rerun", report(52, 1.2), "--db", db()});
  EXPECT_EQ(twice.exit_code, 1) << twice.out << twice.err;
  EXPECT_NE(twice.out.find("FAIL: "), std::string::npos) << twice.out;

  expect_bad_input(ampbench_cli({"history", "check", slow, "--db", db(), "--alpha", "2"}), "--alpha");
  expect_bad_input(ampbench_cli({"history", "check", slow, "--db", db(), "--max-slowdown", "fast"}), "--max-slowdown");
  expect_bad_input(ampbench_cli({"history", "check", slow, "--db", db(), "--min-runs", "1"}), "--min-runs");
  expect_bad_input(ampbench_cli({"history", "check", slow, "--db", db(), "--rerun", "nope.json"}), "nope.json");
  expect_bad_input(ampbench_cli({"history", "check", slow, "--db", db(), "--testbed", "gpu-runner-7"}),
                   "no runs of testbed gpu-runner-7");
}

TEST_F(HistoryCommand, CheckWritesItsVerdictsAsJsonForPrograms) {
  std::vector<std::string> add = {"history", "add", "--db", db()};
  for (int run = 0; run < 8; ++run) add.push_back(report(run));
  ASSERT_EQ(ampbench_cli(add).exit_code, 0);
  const auto verdicts = [](const ProcessResult& result) {
    const auto json = nlohmann::json::parse(result.out);
    std::map<std::string, std::string> by_cell;
    for (const auto& cell : json.at("cells")) by_cell[cell.at("cell")] = cell.at("verdict");
    return std::pair{json, by_cell};
  };
  const auto slow = report(51, 1.2);
  const auto once = ampbench_cli({"history", "check", slow, "--db", db(), "--format", "json"});
  ASSERT_EQ(once.exit_code, 4) << once.out << once.err;
  const auto [flagged, flagged_cells] = verdicts(once);
  EXPECT_EQ(flagged.at("verdict"), "needs confirmation");
  EXPECT_EQ(flagged.at("regressed"), 0);
  EXPECT_GE(flagged.at("needs_confirmation").get<int>(), 1);
  EXPECT_EQ(flagged_cells.at("simple_cnn/bf16/cpu/default"), "needs confirmation");
  EXPECT_EQ(flagged.at("testbed").at("fingerprint").get<std::string>().size(), 16u);
  EXPECT_TRUE(flagged.at("testbed").at("facts").contains("threads")) << flagged.at("testbed");
  for (const auto& cell : flagged.at("cells")) {
    if (cell.at("verdict") != "needs confirmation") continue;
    // The change it saw (+20%) lies beyond what it says it flags, relative as in every figure.
    EXPECT_GT(cell.at("step_time_change").get<double>(), cell.at("flags_beyond").get<double>()) << cell;
    EXPECT_GT(cell.at("step_time_change").get<double>(), 0.1) << cell;
    EXPECT_EQ(cell.at("history_runs"), 8) << cell;
  }
  const auto twice =
      ampbench_cli({"history", "check", slow, "--rerun", report(52, 1.2), "--db", db(), "--format", "json"});
  ASSERT_EQ(twice.exit_code, 1) << twice.out << twice.err;
  EXPECT_EQ(verdicts(twice).first.at("verdict"), "fail");
  const auto same = ampbench_cli({"history", "check", report(50), "--db", db(), "--format", "json"});
  ASSERT_EQ(same.exit_code, 0) << same.out << same.err;
  EXPECT_EQ(verdicts(same).first.at("verdict"), "pass");
  expect_bad_input(ampbench_cli({"history", "check", slow, "--db", db(), "--format", "yaml"}), "--format");
}

TEST_F(HistoryCommand, BisectPrintsTheCommitRangeOfEachChangePoint) {
  for (int run = 0; run < 12; ++run) {
    const auto added = ampbench_cli(
        {"history", "add", "--db", db(), "--commit", "c" + std::to_string(run), report(run, run >= 6 ? 1.15 : 1.0)});
    ASSERT_EQ(added.exit_code, 0) << added.err;
  }
  const auto printed = ampbench_cli({"history", "bisect", "--db", db(), "--cell", "simple_cnn/bf16/cpu/default"});
  ASSERT_EQ(printed.exit_code, 0) << printed.err;
  EXPECT_NE(printed.out.find("change point at run 7, +15.0%"), std::string::npos) << printed.out;
  EXPECT_NE(printed.out.find("between commit c5 (run 6, the last before) and c6 (run 7)"), std::string::npos)
      << printed.out;
  EXPECT_NE(printed.out.find("git bisect start c6 c5"), std::string::npos) << printed.out;
  EXPECT_NE(printed.out.find("--before-run 7"), std::string::npos) << printed.out;
  const auto none = ampbench_cli({"history", "bisect", "--db", db(), "--cell", "simple_net/fp32/cpu/default"});
  EXPECT_EQ(none.exit_code, 0);
  EXPECT_NE(none.out.find("no change point in simple_net/fp32/cpu/default"), std::string::npos) << none.out;
  expect_bad_input(ampbench_cli({"history", "bisect", "--db", db(), "--cell", "x/y/z/w"}), "--cell: no cell 'x/y/z/w'");
  expect_bad_input(
      ampbench_cli({"history", "bisect", "--db", db(), "--cell", "simple_cnn/bf16/cpu/default", "--figure", "speed"}),
      "--figure: unknown figure 'speed'");
  expect_bad_input(ampbench_cli({"history", "check", report(30), "--db", db(), "--cell", "x/y/z/w"}),
                   "the run has no cell x/y/z/w");
}

// The host got 12% faster from run 7, the probe and every step with it; the code of simple_cnn 15%
// slower from run 13. At its probe the step time changed once, at 13, as it did per probe.
TEST_F(HistoryCommand, AHostChangeTheStepFollowsIsNoChangePointAtItsProbe) {
  std::string adds;
  for (int run = 0; run < 18; ++run) {
    const auto path = (dir_ / ("host" + std::to_string(run) + ".json")).string();
    ampbench::reports::write_report_atomically(
        history_run(run, run >= 12 ? 1.15 : 1.0, "simple_cnn", run >= 6 ? 0.88 : 1.0), path);
    const auto added = ampbench_cli({"history", "add", "--db", db(), path});
    ASSERT_EQ(added.exit_code, 0) << added.err;
    adds += added.out;
  }
  EXPECT_EQ(adds.find("from run 7"), std::string::npos) << adds;
  EXPECT_NE(adds.find("change point: simple_cnn/bf16/cpu/default step_time_s +15.0%"), std::string::npos) << adds;
  const auto shown = ampbench_cli({"history", "show", "--db", db(), "--figure", "step_time_s", "--figure",
                                   "step_time_per_probe", "--format", "json"});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  std::map<std::string, std::vector<std::int64_t>> runs;  // cell and figure -> the runs of its change points
  for (const auto& series : nlohmann::json::parse(shown.out)["testbeds"][0]["series"]) {
    auto& found = runs[series["cell"].get<std::string>() + " " + series["figure"].get<std::string>()];
    for (const auto& change : series["change_points"]) found.push_back(change["run"].get<std::int64_t>());
  }
  for (const auto& [series, found] : runs) {
    const auto expected =
        series.rfind("simple_cnn/", 0) == 0 ? std::vector<std::int64_t>{13} : std::vector<std::int64_t>{};
    EXPECT_EQ(found, expected) << series;
  }
}

// The host got 12% faster from run 8, the probe and the step with it, while from run to run the
// probe moved +-10% without the step: the runs cannot say how far the step follows the probe
// (within each side, not at all), so the step time's change is found, and named the machine's in
// add, show (text and JSON) and bisect: across it the step time per probe did not move.
TEST_F(HistoryCommand, AChangeTheProbeMovedWithIsNamedTheMachines) {
  std::string adds;
  for (int run = 0; run < 18; ++run) {
    const auto path = (dir_ / ("host" + std::to_string(run) + ".json")).string();
    const double wiggle = 1.0 + 0.1 * static_cast<double>(run % 3 - 1);  // the probe's alone
    ampbench::reports::write_report_atomically(history_run(run, 1.0 / wiggle, "", (run >= 7 ? 0.88 : 1.0) * wiggle),
                                               path);
    const auto added = ampbench_cli({"history", "add", "--db", db(), "--commit", "c" + std::to_string(run), path});
    ASSERT_EQ(added.exit_code, 0) << added.err;
    adds += added.out;
  }
  EXPECT_NE(adds.find("change point: simple_cnn/bf16/cpu/default step_time_s -12.0%"), std::string::npos) << adds;
  EXPECT_NE(adds.find("from run 8; the machine's: the probe moved with it"), std::string::npos) << adds;
  const auto shown = ampbench_cli({"history", "show", "--db", db(), "--cell", "simple_cnn/bf16/cpu/default", "--figure",
                                   "step_time_s", "--figure", "step_time_per_probe", "--format", "json"});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  const auto document = nlohmann::json::parse(shown.out);
  std::map<std::string, std::vector<std::pair<std::int64_t, std::string>>> changes;  // figure -> (run, attribution)
  for (const auto& series : document["testbeds"][0]["series"]) {
    for (const auto& change : series["change_points"]) {
      changes[series["figure"].get<std::string>()].emplace_back(change["run"].get<std::int64_t>(),
                                                                change["attribution"].get<std::string>());
    }
  }
  ASSERT_EQ(changes["step_time_s"].size(), 1u) << shown.out;
  EXPECT_EQ(changes["step_time_s"][0].first, 8);
  EXPECT_EQ(changes["step_time_s"][0].second.rfind("the machine's: the probe moved with it", 0), 0u) << shown.out;
  EXPECT_TRUE(changes["step_time_per_probe"].empty()) << shown.out;

  const auto bisect = ampbench_cli(
      {"history", "bisect", "--db", db(), "--cell", "simple_cnn/bf16/cpu/default", "--figure", "step_time_s"});
  ASSERT_EQ(bisect.exit_code, 0) << bisect.err;
  EXPECT_NE(bisect.out.find("the machine's: the probe moved with it"), std::string::npos) << bisect.out;
  EXPECT_NE(bisect.out.find("a bisect is unlikely to find a commit"), std::string::npos) << bisect.out;
  const auto text = ampbench_cli(
      {"history", "show", "--db", db(), "--cell", "simple_cnn/bf16/cpu/default", "--figure", "step_time_s"});
  EXPECT_NE(text.out.find("change point at run 8: -12.0%"), std::string::npos) << text.out;
}

// Runs 4 and 9 the host spent wholly in its slower state (probe 1.45x, simple_cnn's steps 1.9x):
// show names them in each step-time series, in the text and per run in the JSON; no change point.
TEST_F(HistoryCommand, ShowMarksTheRunsTheHostSpentInAnotherState) {
  std::vector<std::string> add = {"history", "add", "--db", db()};
  for (int run = 0; run < 12; ++run) {
    const auto path = (dir_ / ("state" + std::to_string(run) + ".json")).string();
    const bool slow_host = run == 3 || run == 8;
    ampbench::reports::write_report_atomically(
        slow_host ? history_run(run, 1.9 / 1.45, "simple_cnn", 1.45) : history_run(run), path);
    add.push_back(path);
  }
  const auto added = ampbench_cli(add);
  ASSERT_EQ(added.exit_code, 0) << added.err;
  EXPECT_EQ(added.out.find("change point"), std::string::npos) << added.out;
  const auto text = ampbench_cli({"history", "show", "--db", db(), "--cell", "simple_cnn/bf16/cpu/default", "--figure",
                                  "step_time_s", "--figure", "speedup"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("simple_cnn/bf16/cpu/default step_time_s: 12 runs (2 in another state of the host, left "
                          "out), last"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("simple_cnn/bf16/cpu/default speedup: 12 runs, last"), std::string::npos) << text.out;
  const auto json = ampbench_cli({"history", "show", "--db", db(), "--cell", "simple_cnn/bf16/cpu/default", "--figure",
                                  "step_time_per_probe", "--format", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto series = nlohmann::json::parse(json.out)["testbeds"][0]["series"][0];
  EXPECT_EQ(series["other_host_state_runs"], 2);
  std::vector<std::int64_t> marked;
  for (const auto& run : series["runs"]) {
    if (run["other_host_state"].get<bool>()) marked.push_back(run["run"].get<std::int64_t>());
  }
  EXPECT_EQ(marked, (std::vector<std::int64_t>{4, 9}));
}

// simple_cnn 8% slower from run 21, runs 19 and 20 spent in the host's other state: the change
// point has run 18 before it, and bisect says why its commit range is wider than one run.
TEST_F(HistoryCommand, BisectSaysWhichRunsOfTheRangeWereLeftOut) {
  std::vector<std::string> add = {"history", "add", "--db", db()};
  for (int run = 0; run < 30; ++run) {
    const auto path = (dir_ / ("left" + std::to_string(run) + ".json")).string();
    const double slowdown = run >= 20 ? 1.08 : 1.0;
    ampbench::reports::write_report_atomically(run == 18 || run == 19
                                                   ? history_run(run, slowdown * 1.9 / 1.45, "simple_cnn", 1.45)
                                                   : history_run(run, slowdown, "simple_cnn"),
                                               path);
    add.push_back(path);
  }
  ASSERT_EQ(ampbench_cli(add).exit_code, 0);
  const auto bisect = ampbench_cli({"history", "bisect", "--db", db(), "--cell", "simple_cnn/bf16/cpu/default"});
  ASSERT_EQ(bisect.exit_code, 0) << bisect.err;
  EXPECT_NE(bisect.out.find("change point at run 21"), std::string::npos) << bisect.out;
  EXPECT_NE(bisect.out.find("  run(s) 19, 20 between them were left out, the host in another state: the range spans "
                            "their commits\n"),
            std::string::npos)
      << bisect.out;
  EXPECT_NE(bisect.out.find("(run 18, the last before)"), std::string::npos) << bisect.out;
}

// A fleet's history on a PostgreSQL server (the tests' own): add, show, check, bisect (its recipe
// without the URL's password, quoted for the shell) and export, which an SQLite file imports to the
// same lines.
TEST_F(HistoryCommand, KeepsAFleetsHistoryOnPostgreSQL) {
  if (ampbench::testing::postgres_tests_are_off()) GTEST_SKIP() << "the PostgreSQL tests are off in this build";
  ampbench::testing::PostgresTestDatabase server("cli_fleet");
  auto with_password = server.url();
  with_password.replace(with_password.find("ampbench@"), 9, "ampbench:s3cret@");  // trust: the server ignores it
  std::vector<std::string> add = {"history", "add", "--db", with_password};
  for (int run = 0; run < 12; ++run) add.push_back(report(run, run >= 6 ? 1.15 : 1.0));
  const auto added = ampbench_cli(add);
  ASSERT_EQ(added.exit_code, 0) << added.err;
  EXPECT_NE(added.out.find("change point: simple_cnn/bf16/cpu/default step_time_per_probe +15.0%"), std::string::npos)
      << added.out;

  const auto json = ampbench_cli({"history", "show", "--db", server.url(), "--format", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto shown = nlohmann::json::parse(json.out);
  ASSERT_EQ(shown["testbeds"].size(), 1u);
  EXPECT_EQ(shown["testbeds"][0]["runs"], 12);

  const auto slow = report(51, 1.4);
  EXPECT_EQ(ampbench_cli({"history", "check", slow, "--db", server.url()}).exit_code, 4);
  const auto twice = ampbench_cli({"history", "check", slow, "--rerun", report(52, 1.4), "--db", server.url()});
  EXPECT_EQ(twice.exit_code, 1) << twice.out << twice.err;

  const auto printed =
      ampbench_cli({"history", "bisect", "--db", with_password, "--cell", "simple_cnn/bf16/cpu/default"});
  ASSERT_EQ(printed.exit_code, 0) << printed.err;
  EXPECT_NE(printed.out.find("--db '" + server.url() + "' --testbed"), std::string::npos) << printed.out;
  EXPECT_EQ(printed.out.find("s3cret"), std::string::npos) << printed.out;

  const auto exported = ampbench_cli({"history", "export", "--db", server.url()});
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  const auto lines_file = (dir_ / "fleet.jsonl").string();
  std::ofstream(lines_file) << exported.out;
  ASSERT_EQ(ampbench_cli({"history", "import", lines_file, "--db", db()}).exit_code, 0);
  EXPECT_EQ(ampbench_cli({"history", "export", "--db", db()}).out, exported.out);
}

TEST_F(HistoryCommand, TheDatabaseComesFromTheEnvironmentWhenNotGiven) {
  setenv("AMPBENCH_HISTORY_DB", db().c_str(), 1);
  const auto added = ampbench_cli({"history", "add", report(0)});
  unsetenv("AMPBENCH_HISTORY_DB");
  ASSERT_EQ(added.exit_code, 0) << added.err;
  EXPECT_TRUE(std::filesystem::exists(db()));
}

}  // namespace
