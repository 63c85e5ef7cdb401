#include "ampbench/history/history_store.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "ampbench/history/host_state.h"
#include "ampbench/reports/report_json.h"
#include "database.h"
#include "fnv1a.h"
#include "postgres_database.h"
#include "schema_migrations.h"

namespace ampbench::history {
namespace {

using detail::Database;
using detail::OpenMode;
using detail::Statement;
using detail::WriteTransaction;
using nlohmann::json;

std::string now_utc() {
  const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

std::vector<std::pair<std::string, std::string>> facts_from(const json& facts) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& fact : facts) out.emplace_back(fact.at(0).get<std::string>(), fact.at(1).get<std::string>());
  return out;
}

ChangePointOptions change_point_options(Figure figure) {
  ChangePointOptions options;
  options.scale = change_scale(figure);
  // A divergence ratio is on the scale of FP32's noise floor: a change of one floor is the least
  // worth a change point; the other figures change by ratios, 5% as check's default threshold.
  options.min_magnitude = options.scale == ChangeScale::kAbsolute ? 1.0 : 0.05;
  return options;
}

}  // namespace

struct HistoryStore::Impl {
  std::unique_ptr<Database> database;  // the store's one connection, which every query goes through
  Database& db() const { return *database; }

  Impl(const std::string& location, Access access)
      : database(detail::open_database(location, access == Access::kWrite ? OpenMode::kCreate : OpenMode::kReadOnly)) {
    const int version = schema_version();
    if (version > kSchemaVersion) {
      throw HistoryError(db().name() + ": history schema " + std::to_string(version) +
                         " is newer than this ampbench's (" + std::to_string(kSchemaVersion) +
                         "); use a newer ampbench");
    }
    if (version == kSchemaVersion) return;
    if (access == Access::kRead) {
      throw HistoryError(db().name() + (version < 0 ? ": no ampbench history in it yet (history add makes one)"
                                                    : ": history schema " + std::to_string(version) +
                                                          " is older than this ampbench's; history add migrates it"));
    }
    // WAL (readers never block the writer) is a property of the file, set once, outside a transaction.
    if (db().dialect() == detail::Dialect::kSqlite) db().execute("PRAGMA journal_mode=WAL");
    WriteTransaction transaction(db());
    // Read again under the write lock: another process may have made or migrated it meanwhile.
    for (int from = std::max(schema_version(), 0); from < kSchemaVersion; ++from) {
      db().execute(detail::schema_migrations(db().dialect())[from]);
      Statement set(db(), "UPDATE ampbench_history SET value = ?1 WHERE key = 'schema_version'");
      set.bind(1, std::to_string(from + 1)).step();
    }
    transaction.commit();
  }

  // -1: an empty database (no tables); else the stored schema version. Throws for a database
  // with tables that are not ampbench's.
  int schema_version() {
    const auto tables = db().table_names();
    if (tables.empty()) return -1;
    if (std::find(tables.begin(), tables.end(), "ampbench_history") == tables.end()) {
      throw HistoryError(db().name() + ": not an ampbench history database");
    }
    Statement version(db(), "SELECT value FROM ampbench_history WHERE key = 'schema_version'");
    if (!version.step()) throw HistoryError(db().name() + ": not an ampbench history database (no schema version)");
    try {
      return std::stoi(version.text(0));
    } catch (const std::exception&) {
      throw HistoryError(db().name() + ": not an ampbench history database (schema version '" + version.text(0) + "')");
    }
  }

  // A named row's id, or nothing where no run has stored that name yet (readers never insert).
  std::optional<std::int64_t> existing_id(const char* table, const std::string& name) {
    Statement find(db(), (std::string("SELECT id FROM ") + table + " WHERE name = ?1").c_str());
    if (find.bind(1, name).step()) return find.integer(0);
    return std::nullopt;
  }

  std::int64_t id_of(const char* table, const std::string& name) {
    if (const auto id = existing_id(table, name)) return *id;
    Statement insert(db(), (std::string("INSERT INTO ") + table + " (name) VALUES (?1)").c_str());
    insert.bind(1, name).step();
    return db().last_insert_id();
  }

  struct FiledTestbed {
    std::int64_t id = 0;
    // Filed by name under a testbed stored from other facts: where they differ.
    std::vector<FactDifference> differing_facts;
  };

  // The testbed a run is filed under: the stored one of its name, else a new one of its facts.
  FiledTestbed file_under(const Testbed& testbed) {
    Statement find(db(), "SELECT id, fingerprint, facts FROM testbeds WHERE name = ?1");
    if (find.bind(1, testbed.name).step()) {
      const Testbed stored{testbed.name, find.text(1), facts_from(json::parse(find.text(2)))};
      return {find.integer(0), differing_facts(stored, testbed)};
    }
    Statement insert(db(), "INSERT INTO testbeds (name, fingerprint, facts) VALUES (?1, ?2, ?3)");
    insert.bind(1, testbed.name).bind(2, testbed.fingerprint).bind(3, facts_json(testbed).dump()).step();
    return {db().last_insert_id(), {}};
  }

  std::optional<std::int64_t> run_with_digest(const std::string& digest) {
    Statement find(db(), "SELECT id FROM runs WHERE digest = ?1");
    if (find.bind(1, digest).step()) return find.integer(0);
    return std::nullopt;
  }

  // Stores the run and the change points it reveals; inside the caller's transaction.
  AddedRun insert(const StoredRun& run) {
    AddedRun added;
    added.testbed = run.testbed;
    if (const auto existing = run_with_digest(run.digest)) {
      added.run_id = *existing;
      added.duplicate = true;
      return added;
    }
    auto filed = file_under(run.testbed);
    const auto testbed = filed.id;
    added.differing_facts = std::move(filed.differing_facts);
    Statement insert_run(db(),
                         "INSERT INTO runs (testbed_id, digest, commit_sha, branch, started_utc, added_utc, source, "
                         "environment, config) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
    insert_run.bind(1, testbed)
        .bind(2, run.digest)
        .bind(3, run.commit)
        .bind(4, run.branch)
        .bind(5, run.started_utc)
        .bind(6, run.added_utc)
        .bind(7, run.source)
        .bind(8, run.environment.dump())
        .bind(9, run.config.dump())
        .step();
    added.run_id = db().last_insert_id();
    Statement insert_cell(db(), "INSERT INTO run_cells (run_id, cell_id, status) VALUES (?1, ?2, ?3)");
    Statement insert_figure(db(),
                            "INSERT INTO figures (testbed_id, cell_id, figure, run_id, value, ci_low, ci_high, draws) "
                            "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
    for (const auto& cell : run.cells) {
      const auto cell_id = id_of("cells", cell.cell);
      insert_cell.bind(1, added.run_id).bind(2, cell_id).bind(3, std::string(reports::to_string(cell.status))).step();
      insert_cell.reset();
      for (const auto& [figure, value] : cell.figures) {
        insert_figure.bind(1, testbed)
            .bind(2, cell_id)
            .bind(3, std::string(to_string(figure)))
            .bind(4, added.run_id)
            .bind(5, value.value)
            .bind(6, value.ci_low)
            .bind(7, value.ci_high)
            .bind(8, value.draws)
            .step();
        insert_figure.reset();
      }
      // After all the cell's figures are in: the step-time search reads both step-time series.
      for (const auto& [figure, value] : cell.figures) {
        for (auto& change : new_change_points(testbed, cell_id, figure, added.run_id)) {
          added.change_points.push_back({cell.cell, figure, change.run_id, change.change});
        }
      }
      ++added.cells;
    }
    return added;
  }

  // The runs of one series, oldest first: those with from_run <= id < before_run, the last `last`.
  std::vector<SeriesEntry> series(std::int64_t testbed, std::int64_t cell_id, Figure figure, std::int64_t from_run,
                                  std::int64_t before_run, std::int64_t last) {
    // The newest `last` first, then put back in order.
    Statement rows(db(),
                   "SELECT * FROM (SELECT f.run_id, r.commit_sha, r.branch, r.started_utc, f.value, f.ci_low, "
                   "f.ci_high, f.draws FROM figures f JOIN runs r ON r.id = f.run_id WHERE f.testbed_id = ?1 AND "
                   "f.cell_id = ?2 AND f.figure = ?3 AND f.run_id >= ?4 AND f.run_id < ?5 ORDER BY f.run_id DESC "
                   "LIMIT ?6) AS newest ORDER BY 1");
    rows.bind(1, testbed)
        .bind(2, cell_id)
        .bind(3, std::string(to_string(figure)))
        .bind(4, from_run)
        .bind(5, before_run)
        .bind(6, last);
    std::vector<SeriesEntry> out;
    while (rows.step()) {
      out.push_back({rows.integer(0), rows.text(1), rows.text(2), rows.text(3),
                     FigureValue{rows.real(4), rows.real(5), rows.real(6), rows.integer(7)}});
    }
    return out;
  }

  // The runs a search of the series looks at: those after its last change point (at most
  // kChangePointWindow of them). A step-time series is searched without the runs the host spent
  // wholly in another state (host_state.h), judged over the same runs of the other step-time
  // figure: their steps follow the probe by cell, and one such run made a false change point in a
  // series of identical code. The raw step time is searched at equal probe, the probe's share taken
  // out at the slope its runs show, where its runs all have a probe (change_points.h): `probed`
  // holds them then, else it is empty.
  struct SearchedSegment {
    std::vector<std::int64_t> runs;
    std::vector<SeriesPoint> points;
    std::vector<ProbedPoint> probed;
  };

  SearchedSegment searched_segment(std::int64_t testbed, std::int64_t cell_id, Figure figure) {
    Statement last(db(),
                   "SELECT coalesce(max(run_id), 0) FROM change_points WHERE testbed_id = ?1 AND cell_id = ?2 "
                   "AND figure = ?3");
    last.bind(1, testbed).bind(2, cell_id).bind(3, std::string(to_string(figure))).step();
    const auto from = last.integer(0);
    const auto until = std::numeric_limits<std::int64_t>::max();
    const auto window = static_cast<std::int64_t>(kChangePointWindow);
    const auto segment = series(testbed, cell_id, figure, from, until, window);
    std::set<std::int64_t> other_state;
    std::map<std::int64_t, FigureValue> per_probe;  // a step time's per-probe figure, by run
    if (const auto partner = host_state_partner(figure)) {
      const auto partner_segment = series(testbed, cell_id, *partner, from, until, window);
      other_state = runs_in_other_host_state(figure, segment, partner_segment);
      if (figure == Figure::kStepTime) {
        for (const auto& entry : partner_segment) per_probe[entry.run_id] = entry.value;
      }
    }
    SearchedSegment out;
    for (const auto& entry : segment) {
      if (other_state.count(entry.run_id) > 0) continue;
      out.runs.push_back(entry.run_id);
      out.points.push_back(entry.value);
      if (const auto ratio = per_probe.find(entry.run_id); ratio != per_probe.end()) {
        out.probed.push_back({entry.value, ratio->second});
      }
    }
    if (out.probed.size() != out.points.size()) out.probed.clear();
    return out;
  }

  // The searched segment's change points, stored as found by `run_id`. A change found after runs
  // left out has the last run kept before it as its previous run, so its commit range spans them.
  std::vector<StoredChangePoint> new_change_points(std::int64_t testbed, std::int64_t cell_id, Figure figure,
                                                   std::int64_t run_id) {
    const auto segment = searched_segment(testbed, cell_id, figure);
    const auto& runs = segment.runs;
    const auto changes = segment.probed.empty()
                             ? find_change_points(segment.points, change_point_options(figure))
                             : find_change_points_at_probe(segment.probed, change_point_options(figure));
    std::vector<StoredChangePoint> found;
    for (const auto& change : changes) {
      StoredChangePoint stored{runs[change.index], runs[change.index - 1], run_id, change};
      Statement insert(db(),
                       "INSERT INTO change_points (testbed_id, cell_id, figure, run_id, previous_run, found_at_run, "
                       "magnitude, p_value, before, after) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)");
      insert.bind(1, testbed)
          .bind(2, cell_id)
          .bind(3, std::string(to_string(figure)))
          .bind(4, stored.run_id)
          .bind(5, stored.previous_run)
          .bind(6, run_id)
          .bind(7, change.magnitude)
          .bind(8, change.p_value)
          .bind(9, change.before)
          .bind(10, change.after)
          .step();
      found.push_back(stored);
    }
    return found;
  }
};

HistoryStore::HistoryStore(const std::string& location, Access access)
    : impl_(std::make_unique<Impl>(location, access)) {}
HistoryStore::HistoryStore(HistoryStore&&) noexcept = default;
HistoryStore& HistoryStore::operator=(HistoryStore&&) noexcept = default;
HistoryStore::~HistoryStore() = default;

AddedRun HistoryStore::add(const reports::Report& report, const std::string& digest, const RunMetadata& metadata) {
  StoredRun run;
  run.testbed = testbed_of(report, metadata.testbed);
  run.digest = digest;
  run.commit = metadata.commit.empty() ? report.environment.git_revision : metadata.commit;
  run.branch = metadata.branch;
  run.started_utc = report.environment.timestamp_utc;
  run.added_utc = now_utc();
  run.source = metadata.source;
  run.environment = report.environment;
  run.config = reports::run_config_to_json(report.config);
  run.cells = run_figures(report);
  WriteTransaction transaction(impl_->db());
  auto added = impl_->insert(run);
  transaction.commit();
  return added;
}

std::optional<std::int64_t> HistoryStore::run_with_digest(const std::string& digest) const {
  return impl_->run_with_digest(digest);
}

std::vector<TestbedRow> HistoryStore::testbeds() const {
  Statement rows(impl_->db(),
                 "SELECT t.id, t.name, t.fingerprint, t.facts, count(r.id) FROM testbeds t LEFT JOIN runs r "
                 "ON r.testbed_id = t.id GROUP BY t.id ORDER BY t.id");
  std::vector<TestbedRow> out;
  while (rows.step()) {
    out.push_back(
        {rows.integer(0), {rows.text(1), rows.text(2), facts_from(json::parse(rows.text(3)))}, rows.integer(4)});
  }
  return out;
}

std::optional<TestbedRow> HistoryStore::testbed_named(const std::string& name) const {
  for (auto& row : testbeds()) {
    if (row.testbed.name == name) return row;
  }
  return std::nullopt;
}

std::vector<std::string> HistoryStore::cells(std::int64_t testbed_id) const {
  Statement rows(impl_->db(),
                 "SELECT DISTINCT c.name FROM run_cells rc JOIN cells c ON c.id = rc.cell_id JOIN runs r "
                 "ON r.id = rc.run_id WHERE r.testbed_id = ?1 ORDER BY c.name");
  rows.bind(1, testbed_id);
  std::vector<std::string> out;
  while (rows.step()) out.push_back(rows.text(0));
  return out;
}

std::vector<SeriesEntry> HistoryStore::series(std::int64_t testbed_id, const std::string& cell, Figure figure,
                                              std::int64_t from_run, std::int64_t before_run, std::size_t last) const {
  const auto cell_id = impl_->existing_id("cells", cell);
  if (!cell_id) return {};
  return impl_->series(testbed_id, *cell_id, figure, from_run, before_run,
                       last == 0 ? std::numeric_limits<std::int64_t>::max() : static_cast<std::int64_t>(last));
}

std::optional<double> HistoryStore::detectable_change(std::int64_t testbed_id, const std::string& cell, Figure figure,
                                                      std::size_t runs_after) const {
  const auto cell_id = impl_->existing_id("cells", cell);
  if (!cell_id) return std::nullopt;
  const auto segment = impl_->searched_segment(testbed_id, *cell_id, figure);
  return segment.probed.empty() ? history::detectable_change(segment.points, change_point_options(figure), runs_after)
                                : detectable_change_at_probe(segment.probed, change_point_options(figure), runs_after);
}

std::vector<StoredChangePoint> HistoryStore::change_points(std::int64_t testbed_id, const std::string& cell,
                                                           Figure figure) const {
  const auto cell_id = impl_->existing_id("cells", cell);
  if (!cell_id) return {};
  Statement rows(impl_->db(),
                 "SELECT run_id, previous_run, found_at_run, magnitude, p_value, before, after FROM change_points "
                 "WHERE testbed_id = ?1 AND cell_id = ?2 AND figure = ?3 ORDER BY run_id");
  rows.bind(1, testbed_id).bind(2, *cell_id).bind(3, std::string(to_string(figure)));
  std::vector<StoredChangePoint> out;
  while (rows.step()) {
    ChangePoint change;
    change.magnitude = rows.real(3);
    change.p_value = rows.real(4);
    change.before = rows.real(5);
    change.after = rows.real(6);
    out.push_back({rows.integer(0), rows.integer(1), rows.integer(2), change});
  }
  return out;
}

std::vector<StoredRun> HistoryStore::runs() const {
  auto& db = impl_->db();
  Statement runs(db,
                 "SELECT r.id, t.name, t.fingerprint, t.facts, r.digest, r.commit_sha, r.branch, r.started_utc, "
                 "r.added_utc, r.source, r.environment, r.config FROM runs r JOIN testbeds t ON t.id = r.testbed_id "
                 "ORDER BY r.id");
  Statement cells(db,
                  "SELECT c.id, c.name, rc.status FROM run_cells rc JOIN cells c ON c.id = rc.cell_id "
                  "WHERE rc.run_id = ?1 ORDER BY c.name");
  Statement figures(db, "SELECT figure, value, ci_low, ci_high, draws FROM figures WHERE run_id = ?1 AND cell_id = ?2");
  std::vector<StoredRun> out;
  while (runs.step()) {
    StoredRun run{{runs.text(1), runs.text(2), facts_from(json::parse(runs.text(3)))},
                  runs.text(4),
                  runs.text(5),
                  runs.text(6),
                  runs.text(7),
                  runs.text(8),
                  runs.text(9),
                  json::parse(runs.text(10)),
                  json::parse(runs.text(11)),
                  {}};
    cells.bind(1, runs.integer(0));
    while (cells.step()) {
      CellFigures cell{
          cells.text(1), cells.text(2) == "ok" ? reports::CellStatus::kOk : reports::CellStatus::kFailed, {}};
      figures.bind(1, runs.integer(0)).bind(2, cells.integer(0));
      while (figures.step()) {
        if (const auto figure = figure_named(figures.text(0))) {
          cell.figures.emplace_back(*figure,
                                    FigureValue{figures.real(1), figures.real(2), figures.real(3), figures.integer(4)});
        }
      }
      figures.reset();
      order_figures(cell);
      run.cells.push_back(std::move(cell));
    }
    cells.reset();
    out.push_back(std::move(run));
  }
  return out;
}

std::vector<AddedRun> HistoryStore::import_runs(const std::vector<StoredRun>& runs) {
  WriteTransaction transaction(impl_->db());
  std::vector<AddedRun> added;
  for (const auto& run : runs) added.push_back(impl_->insert(run));
  transaction.commit();
  return added;
}

std::string report_digest(const reports::Report& report) { return detail::fnv1a_hex(json(report).dump()); }

std::string printable_location(const std::string& location) {
  return detail::is_postgres_url(location) ? detail::url_without_password(location) : location;
}

std::string default_history_path() {
  const char* path = std::getenv("AMPBENCH_HISTORY_DB");
  return path != nullptr && *path != '\0' ? path : "ampbench-history.sqlite";
}

}  // namespace ampbench::history
