// The history store: runs by testbed, series, change points found incrementally and never moved,
// export and import, and every database it must refuse without changing it.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <fstream>
#include <sstream>
#include <thread>

#include "ampbench/history/history_store.h"
#include "history_reports.h"
#include "support/scratch_dir.h"

namespace {

using ampbench::history::Figure;
using ampbench::history::HistoryError;
using ampbench::history::HistoryStore;
using ampbench::history::report_digest;
using ampbench::history::RunMetadata;
using ampbench::testing::history_run;
using ampbench::testing::ScratchDir;

constexpr const char* kSlowCell = "simple_cnn/bf16/cpu/default";

std::string read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Runs SQL on the file with SQLite itself (not through the store).
void sql(const std::filesystem::path& path, const std::string& statement) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, statement.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  sqlite3_close(db);
}

ampbench::history::AddedRun add(HistoryStore& store, const ampbench::reports::Report& report,
                                const std::string& commit = "") {
  return store.add(report, report_digest(report), RunMetadata{commit, "main", "", "report.json"});
}

std::string error_of(const std::function<void()>& body) {
  try {
    body();
  } catch (const HistoryError& error) {
    return error.what();
  }
  return "(no error)";
}

TEST(HistoryStore, KeepsEachRunOnceUnderItsTestbed) {
  ScratchDir dir;
  HistoryStore store((dir / "h.sqlite").string(), HistoryStore::Access::kWrite);
  const auto first = add(store, history_run(0), "abc123");
  EXPECT_EQ(first.run_id, 1);
  EXPECT_FALSE(first.duplicate);
  EXPECT_EQ(first.cells, history_run(0).cells.size());
  const auto again = add(store, history_run(0));
  EXPECT_TRUE(again.duplicate);
  EXPECT_EQ(again.run_id, 1);
  add(store, history_run(1));
  const auto testbeds = store.testbeds();
  ASSERT_EQ(testbeds.size(), 1u);
  EXPECT_EQ(testbeds[0].runs, 2);
  EXPECT_EQ(testbeds[0].testbed.name, first.testbed.name);
  const auto series = store.series(testbeds[0].id, kSlowCell, Figure::kStepTimePerProbe);
  ASSERT_EQ(series.size(), 2u);
  EXPECT_EQ(series[0].commit, "abc123");
  EXPECT_EQ(series[1].commit, history_run(1).environment.git_revision);
  EXPECT_EQ(series[0].branch, "main");
  EXPECT_LT(series[0].value.ci_low, series[0].value.value);
  // A failed cell is a cell of the testbed with no figures.
  EXPECT_FALSE(store.cells(testbeds[0].id).empty());
}

TEST(HistoryStore, ADifferentMachineIsAnotherTestbedUnlessNamed) {
  ScratchDir dir;
  HistoryStore store((dir / "h.sqlite").string(), HistoryStore::Access::kWrite);
  auto other = history_run(1);
  other.environment.threads = 16;
  add(store, history_run(0));
  add(store, other);
  EXPECT_EQ(store.testbeds().size(), 2u);
  auto named = history_run(2);
  named.environment.threads = 8;
  store.add(named, report_digest(named), RunMetadata{"", "", store.testbeds()[0].testbed.name, ""});
  EXPECT_EQ(store.testbeds().size(), 2u);
  EXPECT_EQ(store.testbeds()[0].runs, 2);
}

TEST(HistoryStore, AnEightPercentSlowdownIsAChangePointAtItsRunAndNowhereElse) {
  ScratchDir dir;
  HistoryStore store((dir / "h.sqlite").string(), HistoryStore::Access::kWrite);
  std::vector<ampbench::history::NewChangePoint> found;
  for (int run = 0; run < 30; ++run) {
    const auto added = add(store, history_run(run, run >= 20 ? 1.08 : 1.0, "simple_cnn"));
    found.insert(found.end(), added.change_points.begin(), added.change_points.end());
  }
  // Each simple_cnn cell's per-probe and raw step time changed at run 21 (id 21 is index 20); the
  // speedups did not (FP32 slowed too), nor did simple_net.
  ASSERT_FALSE(found.empty());
  for (const auto& change : found) {
    EXPECT_EQ(change.cell.rfind("simple_cnn/", 0), 0u) << change.cell;
    EXPECT_TRUE(change.figure == Figure::kStepTimePerProbe || change.figure == Figure::kStepTime);
    EXPECT_EQ(change.run_id, 21) << change.cell;
    EXPECT_NEAR(change.change.magnitude, 0.08, 0.01);
  }
  const auto testbed = store.testbeds()[0].id;
  const auto stored = store.change_points(testbed, kSlowCell, Figure::kStepTimePerProbe);
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_EQ(stored[0].previous_run, 20);
  // Found as soon as enough runs after it had come, and kept as found when more runs came.
  EXPECT_GE(stored[0].found_at_run, 21 + static_cast<int>(ampbench::history::kMinSegment) - 1);
  EXPECT_LT(stored[0].found_at_run, 30);
  for (int run = 30; run < 40; ++run) add(store, history_run(run, 1.08, "simple_cnn"));
  const auto later = store.change_points(testbed, kSlowCell, Figure::kStepTimePerProbe);
  ASSERT_EQ(later.size(), 1u);
  EXPECT_EQ(later[0].run_id, stored[0].run_id);
  EXPECT_EQ(later[0].found_at_run, stored[0].found_at_run);
}

TEST(HistoryStore, IdenticalRunsHaveNoChangePoint) {
  ScratchDir dir;
  HistoryStore store((dir / "h.sqlite").string(), HistoryStore::Access::kWrite);
  for (int run = 0; run < 30; ++run) EXPECT_TRUE(add(store, history_run(run)).change_points.empty()) << run;
}

TEST(HistoryStore, ExportThenImportGivesTheSameHistory) {
  ScratchDir dir;
  HistoryStore store((dir / "a.sqlite").string(), HistoryStore::Access::kWrite);
  for (int run = 0; run < 12; ++run) add(store, history_run(run, run >= 6 ? 1.2 : 1.0));
  const auto exported = store.export_jsonl();
  EXPECT_EQ(std::count(exported.begin(), exported.end(), '\n'), 12);
  HistoryStore copy((dir / "b.sqlite").string(), HistoryStore::Access::kWrite);
  EXPECT_EQ(copy.import_jsonl(exported, "runs.jsonl"), 12u);
  EXPECT_EQ(copy.export_jsonl(), exported);
  const auto testbed = copy.testbeds()[0].id;
  EXPECT_EQ(copy.change_points(testbed, kSlowCell, Figure::kStepTime).size(),
            store.change_points(store.testbeds()[0].id, kSlowCell, Figure::kStepTime).size());
  EXPECT_EQ(copy.import_jsonl(exported, "runs.jsonl"), 0u);  // every run is there already
}

TEST(HistoryStore, ABadExportedLineStoresNothingAndIsNamed) {
  ScratchDir dir;
  HistoryStore store((dir / "a.sqlite").string(), HistoryStore::Access::kWrite);
  add(store, history_run(0));
  add(store, history_run(1));
  auto text = store.export_jsonl();
  HistoryStore copy((dir / "b.sqlite").string(), HistoryStore::Access::kWrite);
  const auto broken = text.substr(0, text.find('\n') + 1) + "{\"schema\": \"ampbench.history-run/1\"}\n";
  EXPECT_NE(error_of([&] { (void)copy.import_jsonl(broken, "runs.jsonl"); }).find("runs.jsonl line 2: testbed"),
            std::string::npos);
  EXPECT_TRUE(copy.export_jsonl().empty());
}

TEST(HistoryStore, RefusesWhatItCannotUseAndLeavesItAsItWas) {
  ScratchDir dir;
  const auto missing = dir / "missing.sqlite";
  EXPECT_NE(error_of([&] { HistoryStore(missing.string(), HistoryStore::Access::kRead); }).find("no such history"),
            std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(missing));

  const auto text_file = dir / "notes.txt";
  std::ofstream(text_file) << "not a database at all, but long enough to have a header of sorts.......\n";
  const auto before = read_bytes(text_file);
  EXPECT_NE(error_of([&] {
              HistoryStore(text_file.string(), HistoryStore::Access::kWrite);
            }).find("notes.txt: cannot read it: not an SQLite database"),
            std::string::npos);
  EXPECT_EQ(read_bytes(text_file), before);

  const auto foreign = dir / "foreign.sqlite";
  sql(foreign, "CREATE TABLE things (x)");
  const auto foreign_before = read_bytes(foreign);
  EXPECT_NE(error_of([&] {
              HistoryStore(foreign.string(), HistoryStore::Access::kWrite);
            }).find("foreign.sqlite: not an ampbench history database"),
            std::string::npos);
  EXPECT_EQ(read_bytes(foreign), foreign_before);

  const auto newer = dir / "newer.sqlite";
  { HistoryStore(newer.string(), HistoryStore::Access::kWrite); }
  sql(newer, "UPDATE ampbench_history SET value = '7' WHERE key = 'schema_version'");
  const auto newer_before = read_bytes(newer);
  EXPECT_NE(error_of([&] {
              HistoryStore(newer.string(), HistoryStore::Access::kWrite);
            }).find("history schema 7 is newer than this ampbench's (1)"),
            std::string::npos);
  EXPECT_EQ(read_bytes(newer), newer_before);
}

TEST(HistoryStore, ALockedDatabaseIsAClearErrorAndStoresNothing) {
  ScratchDir dir;
  const auto path = dir / "h.sqlite";
  HistoryStore store(path.string(), HistoryStore::Access::kWrite);
  add(store, history_run(0));
  sqlite3* other = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &other), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(other, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
  const auto error = error_of([&] { add(store, history_run(1)); });
  EXPECT_NE(error.find("locked by another process"), std::string::npos) << error;
  sqlite3_exec(other, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(other);
  EXPECT_EQ(store.testbeds()[0].runs, 1);
}

TEST(HistoryStore, TwoWritersAtOnceBothStore) {
  ScratchDir dir;
  const auto path = (dir / "h.sqlite").string();
  { HistoryStore(path, HistoryStore::Access::kWrite); }
  auto writer = [&path](int first) {
    HistoryStore store(path, HistoryStore::Access::kWrite);
    for (int run = first; run < first + 10; ++run) add(store, history_run(run));
  };
  std::thread a(writer, 0);
  std::thread b(writer, 100);
  a.join();
  b.join();
  HistoryStore store(path, HistoryStore::Access::kRead);
  EXPECT_EQ(store.testbeds()[0].runs, 20);
}

}  // namespace
