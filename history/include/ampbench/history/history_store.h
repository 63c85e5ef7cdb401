// The history: every run added to it, by testbed, with its figures per cell and the change points
// found in each series. In an SQLite file (WAL, so readers never block the writer) or, for a fleet
// of runners that share one history, on a PostgreSQL server (the same tables and queries). Each add
// is one transaction holding the store's write lock, so two CI jobs adding at once queue and a
// failed add stores nothing. The schema has a version and migrations; a database of a newer schema,
// or one that is not ampbench's, is refused before anything in it changes.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ampbench/history/change_points.h"
#include "ampbench/history/run_figures.h"
#include "ampbench/history/testbed.h"
#include "ampbench/reports/report.h"

namespace ampbench::history {

// Bad input or an unusable database: one line naming the file (the CLI exits 2 on it).
class HistoryError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline constexpr int kSchemaVersion = 1;
inline constexpr int kBusyTimeoutMs = 10000;  // how long an add waits for another writer's lock
// Change points are looked for over at most this many runs after the last one found: a segment's
// energy statistic costs its length squared, and a change older than this was found when it was new.
inline constexpr std::size_t kChangePointWindow = 200;

struct RunMetadata {
  std::string commit;   // --commit, else the report's git revision
  std::string branch;   // --branch; may be empty
  std::string testbed;  // --testbed; empty: the fingerprint's default name
  std::string source;   // the report's file name, for people
};

// What one run is in the store, whether it came from a report or from an exported line.
struct StoredRun {
  Testbed testbed;
  std::string digest;  // identifies the report's content (report_digest): a run is stored once
  std::string commit;
  std::string branch;
  std::string started_utc;
  std::string added_utc;
  std::string source;
  nlohmann::json environment;  // the report's environment and config objects, kept as they were
  nlohmann::json config;
  std::vector<CellFigures> cells;
};

struct NewChangePoint {
  std::string cell;
  Figure figure = Figure::kStepTime;
  std::int64_t run_id = 0;  // the first run after the change
  ChangePoint change;
};

struct AddedRun {
  std::int64_t run_id = 0;
  Testbed testbed;
  std::size_t cells = 0;
  std::vector<NewChangePoint> change_points;  // found because of this run
  bool duplicate = false;                     // the same report was stored before: nothing added
  // Filed by name (--testbed, or an imported run's testbed) under a stored testbed of other facts:
  // where they differ.
  std::vector<FactDifference> differing_facts;
};

struct TestbedRow {
  std::int64_t id = 0;
  Testbed testbed;
  std::int64_t runs = 0;
};

struct SeriesEntry {
  std::int64_t run_id = 0;
  std::string commit;
  std::string branch;
  std::string started_utc;
  FigureValue value;
};

struct StoredChangePoint {
  std::int64_t run_id = 0;        // the first run after the change
  std::int64_t previous_run = 0;  // the last run before it: the commit range is (previous, run]
  std::int64_t found_at_run = 0;  // the run whose addition found it
  ChangePoint change;
};

class HistoryStore {
 public:
  enum class Access { kRead, kWrite };
  // Opens the history at `location`: an SQLite file, or a PostgreSQL URL ("postgresql://user@host:
  // port/database"; the database must exist). kWrite creates the file and the schema when absent,
  // migrates an older schema and refuses a newer one; kRead changes nothing and refuses a file that
  // does not exist or a database without a history.
  HistoryStore(const std::string& location, Access access);
  HistoryStore(HistoryStore&&) noexcept;
  HistoryStore& operator=(HistoryStore&&) noexcept;
  ~HistoryStore();

  // Stores the run in one transaction and looks for new change points in every series it extends.
  // `digest` identifies the report's content: the same report twice is stored once.
  AddedRun add(const reports::Report& report, const std::string& digest, const RunMetadata& metadata);

  [[nodiscard]] std::vector<TestbedRow> testbeds() const;
  // The run stored with this report digest, if any.
  [[nodiscard]] std::optional<std::int64_t> run_with_digest(const std::string& digest) const;
  [[nodiscard]] std::optional<TestbedRow> testbed_named(const std::string& name) const;
  [[nodiscard]] std::vector<std::string> cells(std::int64_t testbed_id) const;
  // The runs of one series, oldest first; only those with from_run <= id < before_run, and of those
  // the last `last` (0: all).
  [[nodiscard]] std::vector<SeriesEntry> series(std::int64_t testbed_id, const std::string& cell, Figure figure,
                                                std::int64_t from_run = 0,
                                                std::int64_t before_run = std::numeric_limits<std::int64_t>::max(),
                                                std::size_t last = 0) const;
  [[nodiscard]] std::vector<StoredChangePoint> change_points(std::int64_t testbed_id, const std::string& cell,
                                                             Figure figure) const;
  // The least step the search would find (9 times in 10) once `runs_after` runs have come after it,
  // from the runs it now searches (those since the series' last change point; change_points.h's
  // detectable_change). nullopt for a series with fewer runs than that search needs.
  [[nodiscard]] std::optional<double> detectable_change(std::int64_t testbed_id, const std::string& cell, Figure figure,
                                                        std::size_t runs_after) const;

  // Every run, oldest first, as stored (what `history export` writes: exported_runs.h).
  [[nodiscard]] std::vector<StoredRun> runs() const;
  // Adds the runs in order, skipping those already stored (by digest), in one transaction, looking
  // for change points as `add` does; returns what `add` would for each, in the same order.
  std::vector<AddedRun> import_runs(const std::vector<StoredRun>& runs);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// What identifies a report's content in the store (HistoryStore::add's digest): a hash of its JSON.
[[nodiscard]] std::string report_digest(const reports::Report& report);

// `location` as it may be printed (a bisect recipe, a CI log): a PostgreSQL URL without its password.
[[nodiscard]] std::string printable_location(const std::string& location);

// The default history: $AMPBENCH_HISTORY_DB (a file or a PostgreSQL URL), else "ampbench-history.sqlite".
[[nodiscard]] std::string default_history_path();

}  // namespace ampbench::history
