// The report commands under hostile input and a hostile environment, through the real binary: a
// malformed report or threshold is exit 2 naming the culprit (never a pass, never exit 1), outputs
// never replace links or devices and are written as a set, and lost stdout is an error.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "ampbench/reports/report_json.h"
#include "sample_report.h"
#include "support/process.h"
#include "support/scratch_dir.h"

namespace {

using ampbench::testing::make_sample_report;
using ampbench::testing::ProcessResult;
using ampbench::testing::run_process;
using ampbench::testing::ScratchDir;
namespace fs = std::filesystem;

ProcessResult ampbench_cli(std::vector<std::string> args) {
  args.insert(args.begin(), AMPBENCH_CLI);
  return run_process(args);
}

// The command with its stdout on /dev/full, as `ampbench ... > /dev/full` in a shell.
ProcessResult ampbench_cli_to_full_disk(std::vector<std::string> args) {
  args.insert(args.begin(), {"/bin/sh", "-c", "exec \"$0\" \"$@\" >/dev/full", AMPBENCH_CLI});
  return run_process(args);
}

void write_text(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }

std::string read_text(const fs::path& path) {
  std::ostringstream text;
  text << std::ifstream(path).rdbuf();
  return text.str();
}

void expect_refused(const ProcessResult& result, const std::string& culprit) {
  EXPECT_EQ(result.exit_code, 2) << result.out << result.err;
  EXPECT_NE(result.err.find(culprit), std::string::npos) << result.err;
  EXPECT_TRUE(result.out.empty()) << result.out;
}

class ReportCommandFailures : public ::testing::Test {
 protected:
  void SetUp() override {
    good_ = (dir_ / "good.json").string();
    twin_ = (dir_ / "twin.json").string();  // compare refuses a file given twice
    ampbench::reports::write_report_atomically(make_sample_report(), good_);
    ampbench::reports::write_report_atomically(make_sample_report(), twin_);
  }
  std::string crafted(const std::string& name, const std::string& text) {
    write_text(dir_ / name, text);
    return (dir_ / name).string();
  }
  ScratchDir dir_;
  std::string good_;
  std::string twin_;
};

TEST_F(ReportCommandFailures, AlphaMustBeANumberInItsRange) {
  for (const std::string alpha : {"nan", "NaN", "inf", "0", "-0.01", "0.6", "0x0.01", " 0.01", "1e-3x"}) {
    expect_refused(ampbench_cli({"check", "--baseline", good_, "--current", good_, "--alpha", alpha}),
                   "--alpha: expected a number above 0 and at most 0.5, got '" + alpha + "'");
  }
  EXPECT_EQ(ampbench_cli({"check", "--baseline", good_, "--current", good_, "--alpha", "1e-3"}).exit_code, 0);
  expect_refused(ampbench_cli({"check", "--baseline", good_, "--current", good_, "--max-slowdown", "nan%"}),
                 "--max-slowdown: expected a non-negative fraction");
}

TEST_F(ReportCommandFailures, ADuplicatedCellsKeyCannotPassTheGate) {
  auto slower = make_sample_report();
  for (double& t : slower.cells[0].step_times_s) t *= 5.0;
  std::string text = nlohmann::json(slower).dump();
  text.insert(text.size() - 1, ",\"cells\":[]");  // nlohmann alone would keep this empty list
  const auto current = crafted("dup.json", text);
  expect_refused(ampbench_cli({"check", "--baseline", good_, "--current", current}),
                 "--current " + current + ": duplicate key \"cells\"");
}

TEST_F(ReportCommandFailures, StepTimesThatAreNotPositiveCannotBeJudged) {
  auto json = nlohmann::json(make_sample_report());
  for (auto& t : json["cells"][0]["step_times_s"]) t = 0.0;
  const auto zeros = crafted("zeros.json", json.dump());
  // Before: exit 1 "median_ratio: the denominator's median is 0" as a baseline, a pass as current.
  expect_refused(ampbench_cli({"check", "--baseline", zeros, "--current", good_}),
                 "--baseline " + zeros + ": cells[0].step_times_s[0]: expected a time in seconds above 0, got 0.0");
  expect_refused(ampbench_cli({"compare", good_, zeros}), zeros + ": cells[0].step_times_s[0]");
  json = nlohmann::json(make_sample_report());
  json["cells"][0]["step_times_s"] = nlohmann::json::array();
  const auto empty = crafted("empty.json", json.dump());
  expect_refused(ampbench_cli({"check", "--baseline", good_, "--current", empty}),
                 empty + ": cells[0].step_times_s: a cell with status \"ok\" needs step times");
}

// A summary that no longer describes its samples is refused by every command, not judged.
TEST_F(ReportCommandFailures, DerivedFiguresThatDisagreeWithTheSamplesAreRefused) {
  auto json = nlohmann::json(make_sample_report());
  json["cells"][0]["throughput"]["step_time_s"]["median"] = 0.5;
  const auto edited = crafted("edited.json", json.dump());
  const std::string culprit = edited +
                              ": cells[0].throughput.step_time_s.median: 0.5 is stored, but the report's "
                              "samples give 0.00125";
  expect_refused(ampbench_cli({"check", "--baseline", good_, "--current", edited}), "--current " + culprit);
  expect_refused(ampbench_cli({"report", edited}), culprit);
}

TEST_F(ReportCommandFailures, NonUtf8TextInAReportIsNamed) {
  std::string text = nlohmann::json(make_sample_report()).dump();
  text.insert(text.find("\"hostname\":\"") + 12, "\xff");
  const auto path = crafted("latin1.json", text);
  expect_refused(ampbench_cli({"report", path}), path + ": not valid JSON: ");
}

TEST_F(ReportCommandFailures, LostStdoutIsExit2) {
  const std::string message = "stdout: cannot write: no space left on the device";
  for (const auto& args : std::vector<std::vector<std::string>>{{"report", good_},
                                                                {"compare", good_, twin_},
                                                                {"check", "--baseline", good_, "--current", good_},
                                                                {"list"}}) {
    const auto result = ampbench_cli_to_full_disk(args);
    EXPECT_EQ(result.exit_code, 2) << args[0] << ": " << result.err;
    EXPECT_NE(result.err.find(message), std::string::npos) << args[0] << ": " << result.err;
  }
}

TEST_F(ReportCommandFailures, OutputsWriteThroughLinksAndDevicesWithoutReplacingThem) {
  write_text(dir_ / "real.md", "old");
  fs::create_symlink("real.md", dir_ / "link.md");
  const auto result = ampbench_cli({"report", good_, "--md", (dir_ / "link.md").string(), "--html", "/dev/null"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_TRUE(fs::is_symlink(dir_ / "link.md"));
  EXPECT_EQ(read_text(dir_ / "real.md").rfind("## ampbench", 0), 0u) << read_text(dir_ / "real.md").substr(0, 80);
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
}

TEST_F(ReportCommandFailures, ADirectoryInTheWayWritesNoneOfTheSet) {
  fs::create_directory(dir_ / "report.md");
  write_text(dir_ / "report.html", "old html");
  const auto result =
      ampbench_cli({"report", good_, "--md", (dir_ / "report.md").string(), "--html", (dir_ / "report.html").string()});
  expect_refused(result, "--md " + (dir_ / "report.md").string() + ": cannot write: it is a directory");
  EXPECT_EQ(read_text(dir_ / "report.html"), "old html");
}

TEST_F(ReportCommandFailures, AnOverlongOutputPathIsNamed) {
  const auto path = (dir_ / std::string(5000, 'x')).string();
  expect_refused(ampbench_cli({"compare", good_, twin_, "--out", path}), "--out " + path.substr(0, 40));
  expect_refused(ampbench_cli({"report", path}), ": cannot read: File name too long");
}

// A folder name one byte over NAME_MAX (255): stat() fails with ENAMETOOLONG, which is the user's
// path to fix, named by its flag, not an internal error.
TEST_F(ReportCommandFailures, AnOutputUnderAFolderNameLongerThanTheFilesystemAllowsIsNamed) {
  const auto folder = dir_ / std::string(256, 'x');
  const auto file = [&](const char* name) { return (folder / name).string(); };
  for (const auto& [flag, args] : std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"--out", {"compare", good_, twin_, "--out", file("c.txt")}},
           {"--md", {"compare", good_, twin_, "--md", file("c.md")}},
           {"--html", {"compare", good_, twin_, "--html", file("c.html")}},
           {"--md", {"report", good_, "--md", file("r.md")}},
           {"--html", {"report", good_, "--html", file("r.html")}},
           {"--md", {"check", "--baseline", good_, "--current", twin_, "--md", file("k.md")}},
           {"--html", {"check", "--baseline", good_, "--current", twin_, "--html", file("k.html")}}}) {
    SCOPED_TRACE(args.front() + " " + flag);
    const auto result = ampbench_cli(args);
    expect_refused(result, flag + " " + folder.string().substr(0, 40));
    EXPECT_NE(result.err.find("File name too long"), std::string::npos) << result.err;
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 2) << result.err;  // the error, the usage
  }
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_.path()), fs::directory_iterator()), 2) << "nothing written";
}

}  // namespace
