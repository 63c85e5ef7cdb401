// The history store on both backends (an SQLite file, a real PostgreSQL server): runs by testbed,
// series, change points found incrementally and never moved, export and import, two writers at
// once, the same history whichever keeps it, and every database it must refuse without changing it.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <thread>

#include "ampbench/history/exported_runs.h"
#include "ampbench/history/history_store.h"
#include "ampbench/history/host_state.h"
#include "history_reports.h"
#include "postgres_test_database.h"
#include "support/cli_expectations.h"
#include "support/scratch_dir.h"
#include "support/thrown_message.h"

namespace {

using ampbench::history::exported_lines;
using ampbench::history::Figure;
using ampbench::history::HistoryError;
using ampbench::history::HistoryStore;
using ampbench::history::read_exported_runs;
using ampbench::history::report_digest;
using ampbench::history::RunMetadata;
using ampbench::testing::history_run;
using ampbench::testing::PostgresTestDatabase;
using ampbench::testing::read_bytes;
using ampbench::testing::ScratchDir;

constexpr const char* kSlowCell = "simple_cnn/bf16/cpu/default";

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

// How many of an import's runs were added (not stored before).
std::size_t added_count(const std::vector<ampbench::history::AddedRun>& imported) {
  return static_cast<std::size_t>(
      std::count_if(imported.begin(), imported.end(), [](const auto& run) { return !run.duplicate; }));
}

std::string error_of(const std::function<void()>& body) {
  return ampbench::testing::thrown_message<HistoryError>(body);
}

// The tests that hold on either backend run on each: a fresh SQLite file, or a fresh database on the
// tests' PostgreSQL server.
class HistoryStoreOn : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "postgresql" && ampbench::testing::postgres_tests_are_off()) {
      GTEST_SKIP() << "the PostgreSQL tests are off in this build (-DAMPBENCH_POSTGRES_TESTS=OFF)";
    }
  }
  // A new, empty history; `name` tells two of one test apart.
  std::string location(const std::string& name = "h") {
    if (GetParam() == "sqlite") return (dir_ / (name + ".sqlite")).string();
    const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
    databases_.push_back(std::make_unique<PostgresTestDatabase>(std::string(test->name()) + "_" + name));
    return databases_.back()->url();
  }

 private:
  ScratchDir dir_;
  std::vector<std::unique_ptr<PostgresTestDatabase>> databases_;
};

INSTANTIATE_TEST_SUITE_P(Backends, HistoryStoreOn, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& backend) { return backend.param; });

TEST_P(HistoryStoreOn, KeepsEachRunOnceUnderItsTestbed) {
  HistoryStore store(location(), HistoryStore::Access::kWrite);
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

TEST_P(HistoryStoreOn, ADifferentMachineIsAnotherTestbedUnlessNamed) {
  HistoryStore store(location(), HistoryStore::Access::kWrite);
  auto other = history_run(1);
  other.environment.threads = 16;
  EXPECT_TRUE(add(store, history_run(0)).differing_facts.empty());
  EXPECT_TRUE(add(store, other).differing_facts.empty());
  EXPECT_EQ(store.testbeds().size(), 2u);
  auto named = history_run(2);
  named.environment.threads = 8;
  const auto added = store.add(named, report_digest(named), RunMetadata{"", "", store.testbeds()[0].testbed.name, ""});
  EXPECT_EQ(store.testbeds().size(), 2u);
  EXPECT_EQ(store.testbeds()[0].runs, 2);
  // Filed by name under a testbed of other facts: the one fact that differs, both values.
  ASSERT_EQ(added.differing_facts.size(), 1u);
  EXPECT_EQ(added.differing_facts[0].fact, "threads");
  EXPECT_EQ(added.differing_facts[0].testbed_value, store.testbeds()[0].testbed.facts[7].second);
  EXPECT_EQ(added.differing_facts[0].run_value, "8");
}

TEST_P(HistoryStoreOn, AnEightPercentSlowdownIsAChangePointAtItsRunAndNowhereElse) {
  HistoryStore store(location(), HistoryStore::Access::kWrite);
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

TEST_P(HistoryStoreOn, IdenticalRunsHaveNoChangePoint) {
  HistoryStore store(location(), HistoryStore::Access::kWrite);
  for (int run = 0; run < 30; ++run) EXPECT_TRUE(add(store, history_run(run)).change_points.empty()) << run;
}

// A run the host spent wholly in its slower state: the probe 1.45x, simple_cnn's steps 1.9x (they
// follow the probe more than in full, as the transformer's did on a shared 2-core CPU).
ampbench::reports::Report slow_host_run(int run, double slowdown = 1.0) {
  return history_run(run, slowdown * 1.9 / 1.45, "simple_cnn", 1.45);
}

TEST_P(HistoryStoreOn, RunsTheHostSpentInAnotherStateMakeNoChangePoint) {
  HistoryStore store(location(), HistoryStore::Access::kWrite);
  for (int run = 0; run < 30; ++run) {
    const auto report = run >= 10 && run < 15 ? slow_host_run(run) : history_run(run);
    EXPECT_TRUE(add(store, report).change_points.empty()) << run;
  }
}

// After 60 runs the host moves for good (from id 61): its first runs there stand out and are left
// out, until enough have come that they are the usual state around them; the move is then a change
// point of the raw step time whose commit range holds run 61. Judged against the whole segment's
// median instead, the 60 runs before would hide the new state for as many runs again.
TEST_P(HistoryStoreOn, AHostThatMovedForGoodIsAChangePointOnceItsRunsAreTheUsualState) {
  HistoryStore store(location(), HistoryStore::Access::kWrite);
  for (int run = 0; run < 76; ++run) add(store, run >= 60 ? slow_host_run(run) : history_run(run));
  const auto stored = store.change_points(store.testbeds()[0].id, kSlowCell, Figure::kStepTime);
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_EQ(stored[0].previous_run, 60);
  EXPECT_GE(stored[0].run_id, 61);
  EXPECT_LE(stored[0].found_at_run, 61 + static_cast<std::int64_t>(ampbench::history::kHostStateNeighbours));
  EXPECT_NEAR(stored[0].change.magnitude, 0.9, 0.05);
}

TEST_P(HistoryStoreOn, AChangeAfterRunsInAnotherStateSpansThemInItsCommitRange) {
  HistoryStore store(location(), HistoryStore::Access::kWrite);
  for (int run = 0; run < 30; ++run) {
    const double slowdown = run >= 20 ? 1.08 : 1.0;
    add(store, run == 18 || run == 19 ? slow_host_run(run, slowdown) : history_run(run, slowdown, "simple_cnn"));
  }
  const auto testbed = store.testbeds()[0].id;
  for (const auto figure : {Figure::kStepTimePerProbe, Figure::kStepTime}) {
    const auto stored = store.change_points(testbed, kSlowCell, figure);
    ASSERT_EQ(stored.size(), 1u) << to_string(figure);
    EXPECT_EQ(stored[0].run_id, 21);
    EXPECT_EQ(stored[0].previous_run, 18);  // ids 19 and 20 (runs 18 and 19) were left out
    EXPECT_NEAR(stored[0].change.magnitude, 0.08, 0.01);
  }
}

TEST_P(HistoryStoreOn, ExportThenImportGivesTheSameHistory) {
  HistoryStore store(location("a"), HistoryStore::Access::kWrite);
  for (int run = 0; run < 12; ++run) add(store, history_run(run, run >= 6 ? 1.2 : 1.0));
  const auto exported = exported_lines(store.runs());
  EXPECT_EQ(std::count(exported.begin(), exported.end(), '\n'), 12);
  HistoryStore copy(location("b"), HistoryStore::Access::kWrite);
  EXPECT_EQ(added_count(copy.import_runs(read_exported_runs(exported, "runs.jsonl"))), 12u);
  EXPECT_EQ(exported_lines(copy.runs()), exported);
  const auto testbed = copy.testbeds()[0].id;
  EXPECT_EQ(copy.change_points(testbed, kSlowCell, Figure::kStepTime).size(),
            store.change_points(store.testbeds()[0].id, kSlowCell, Figure::kStepTime).size());
  EXPECT_EQ(added_count(copy.import_runs(read_exported_runs(exported, "runs.jsonl"))), 0u);  // all there already
}

// An imported run files under the stored testbed of its name, as `add --testbed` does; where that
// testbed was made from other facts, the import says where, run by run.
TEST_P(HistoryStoreOn, AnImportedRunUnderATestbedOfOtherFactsSaysWhere) {
  HistoryStore source(location("a"), HistoryStore::Access::kWrite);
  auto elsewhere = history_run(0);
  elsewhere.environment.threads = 8;
  source.add(elsewhere, report_digest(elsewhere), RunMetadata{"", "", "ci", ""});
  HistoryStore copy(location("b"), HistoryStore::Access::kWrite);
  const auto here = history_run(1);
  copy.add(here, report_digest(here), RunMetadata{"", "", "ci", ""});
  const auto imported = copy.import_runs(read_exported_runs(exported_lines(source.runs()), "runs.jsonl"));
  ASSERT_EQ(imported.size(), 1u);
  EXPECT_FALSE(imported[0].duplicate);
  ASSERT_EQ(imported[0].differing_facts.size(), 1u);
  EXPECT_EQ(imported[0].differing_facts[0].fact, "threads");
  EXPECT_EQ(imported[0].differing_facts[0].run_value, "8");
  EXPECT_EQ(imported[0].differing_facts[0].testbed_value, std::to_string(here.environment.threads));
  EXPECT_EQ(copy.testbeds().size(), 1u);
  EXPECT_EQ(copy.testbeds()[0].runs, 2);
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

TEST_P(HistoryStoreOn, TwoWritersAtOnceBothStore) {
  const auto path = location();
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

// The same runs kept by either backend are the same history, to the bit: the exported lines, every
// series' values and every change point (where, when found, magnitude, p-value).
TEST(HistoryStoreOnBoth, KeepTheSameHistoryToTheBit) {
  if (ampbench::testing::postgres_tests_are_off()) GTEST_SKIP() << "the PostgreSQL tests are off in this build";
  ScratchDir dir;
  PostgresTestDatabase server("same_history");
  HistoryStore sqlite((dir / "h.sqlite").string(), HistoryStore::Access::kWrite);
  for (int run = 0; run < 30; ++run) add(sqlite, history_run(run, run >= 20 ? 1.08 : 1.0, "simple_cnn"));
  HistoryStore postgres(server.url(), HistoryStore::Access::kWrite);
  const auto exported = exported_lines(sqlite.runs());
  ASSERT_EQ(added_count(postgres.import_runs(read_exported_runs(exported, "runs.jsonl"))), 30u);
  EXPECT_EQ(exported_lines(postgres.runs()), exported);
  const auto testbed = sqlite.testbeds()[0].id;
  ASSERT_EQ(postgres.testbeds()[0].testbed.name, sqlite.testbeds()[0].testbed.name);
  std::size_t change_points = 0;
  for (const auto& cell : sqlite.cells(testbed)) {
    for (const auto figure : ampbench::history::kFigures) {
      const auto a = sqlite.series(testbed, cell, figure);
      const auto b = postgres.series(postgres.testbeds()[0].id, cell, figure);
      ASSERT_EQ(a.size(), b.size()) << cell;
      for (std::size_t i = 0; i < a.size(); ++i) {
        EXPECT_EQ(a[i].run_id, b[i].run_id);
        EXPECT_EQ(a[i].value.value, b[i].value.value) << cell;
        EXPECT_EQ(a[i].value.ci_low, b[i].value.ci_low) << cell;
      }
      const auto x = sqlite.change_points(testbed, cell, figure);
      const auto y = postgres.change_points(postgres.testbeds()[0].id, cell, figure);
      ASSERT_EQ(x.size(), y.size()) << cell;
      for (std::size_t i = 0; i < x.size(); ++i) {
        EXPECT_EQ(x[i].run_id, y[i].run_id);
        EXPECT_EQ(x[i].found_at_run, y[i].found_at_run);
        EXPECT_EQ(x[i].change.magnitude, y[i].change.magnitude);
        EXPECT_EQ(x[i].change.p_value, y[i].change.p_value);
      }
      change_points += x.size();
    }
  }
  EXPECT_GT(change_points, 0u);
}

TEST(HistoryStoreOnPostgres, RefusesWhatItCannotUseAndLeavesItAsItWas) {
  if (ampbench::testing::postgres_tests_are_off()) GTEST_SKIP() << "the PostgreSQL tests are off in this build";
  const std::string tables = "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'";
  PostgresTestDatabase empty("refuses_empty");
  EXPECT_NE(error_of([&] { HistoryStore(empty.url(), HistoryStore::Access::kRead); }).find("no ampbench history"),
            std::string::npos);
  EXPECT_TRUE(empty.sql(tables).empty());

  PostgresTestDatabase foreign("refuses_foreign");
  foreign.sql("CREATE TABLE things (x integer)");
  EXPECT_NE(error_of([&] {
              HistoryStore(foreign.url(), HistoryStore::Access::kWrite);
            }).find("_refuses_foreign: not an ampbench history database"),
            std::string::npos);
  EXPECT_EQ(foreign.sql(tables), std::vector<std::string>{"things"});

  PostgresTestDatabase newer("refuses_newer");
  { HistoryStore(newer.url(), HistoryStore::Access::kWrite); }
  newer.sql("UPDATE ampbench_history SET value = '7' WHERE key = 'schema_version'");
  EXPECT_NE(error_of([&] {
              HistoryStore(newer.url(), HistoryStore::Access::kWrite);
            }).find("history schema 7 is newer than this ampbench's (1)"),
            std::string::npos);
  EXPECT_EQ(newer.sql("SELECT value FROM ampbench_history WHERE key = 'schema_version'"),
            std::vector<std::string>{"7"});

  // A database the server does not have, a server that does not answer (named by host and port,
  // never with the URL's password), a URL libpq cannot read.
  const auto absent = error_of(
      [&] { HistoryStore(ampbench::testing::postgres_test_url("no_such_history"), HistoryStore::Access::kWrite); });
  EXPECT_NE(absent.find("/no_such_history: cannot connect:"), std::string::npos) << absent;
  EXPECT_NE(absent.find("does not exist"), std::string::npos) << absent;
  const auto unreachable =
      error_of([&] { HistoryStore("postgresql://ci:s3cret@127.0.0.1:1/history", HistoryStore::Access::kWrite); });
  EXPECT_EQ(unreachable.rfind("postgresql://127.0.0.1:1/history: cannot connect: ", 0), 0u) << unreachable;
  EXPECT_EQ(unreachable.find("s3cret"), std::string::npos) << unreachable;
  EXPECT_EQ(unreachable.find('\n'), std::string::npos) << unreachable;
  EXPECT_NE(error_of([&] {
              HistoryStore("postgresql://ci@db.example/history?colour=blue", HistoryStore::Access::kWrite);
            }).find("--db: not a PostgreSQL connection URL: "),
            std::string::npos);
}

// A runner whose add waits for another's longer than kBusyTimeoutMs gets a clear error, and its run
// is not stored in part.
TEST(HistoryStoreOnPostgres, AWriterThatCannotGetTheLockIsAClearErrorAndStoresNothing) {
  if (ampbench::testing::postgres_tests_are_off()) GTEST_SKIP() << "the PostgreSQL tests are off in this build";
  PostgresTestDatabase server("locked");
  HistoryStore store(server.url(), HistoryStore::Access::kWrite);
  add(store, history_run(0));
  // Another runner in the middle of its add: it holds the store's advisory lock (the key "ampb").
  std::thread other([&server] {
    server.sql("BEGIN; SELECT pg_advisory_xact_lock(1634562146); SELECT pg_sleep(" +
               std::to_string(ampbench::history::kBusyTimeoutMs / 1000 + 3) + "); COMMIT");
  });
  while (server.sql("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted")[0] == "0") {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  const auto error = error_of([&] { add(store, history_run(1)); });
  other.join();
  EXPECT_NE(error.find("another runner is adding to it (waited 10 s)"), std::string::npos) << error;
  EXPECT_EQ(store.testbeds()[0].runs, 1);
  EXPECT_EQ(server.sql("SELECT count(*) FROM figures WHERE run_id = 2")[0], "0");
}

}  // namespace
