// `ampbench history add|check|show|bisect|export|import`: every run kept in a database (an SQLite
// file or a PostgreSQL server, --db or $AMPBENCH_HISTORY_DB), compared only within its testbed,
// with the change points found in each cell's series, and the CI gate against that history (exit 1
// regressed, 4 needs a rerun). A report or database that cannot be used is an error naming it,
// exit 2, and nothing stored.
#include <algorithm>
#include <fstream>
#include <iomanip>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "ampbench/history/change_attribution.h"
#include "ampbench/history/exported_runs.h"
#include "ampbench/history/history_check.h"
#include "ampbench/history/history_store.h"
#include "ampbench/history/host_state.h"
#include "ampbench/reports/counted.h"
#include "ampbench/reports/history_page.h"
#include "ampbench/reports/text_format.h"
#include "commands.h"
#include "exit_codes.h"
#include "report_inputs.h"

namespace ampbench::cli {
namespace {

struct HistoryFlags {
  std::string db;
  // add
  std::vector<std::string> reports;
  std::string commit;
  std::string branch;
  std::string testbed;
  // show
  std::string cell;
  std::vector<std::string> figures;
  std::string format = "text";
  // export, import
  std::string out;
  std::string in;
  // check
  std::string current;
  std::string rerun;
  std::size_t window = history::HistoryCheckOptions{}.window;
  std::size_t min_runs = history::HistoryCheckOptions{}.min_runs;
  std::string max_slowdown = "5%";
  std::string max_memory_growth = "5%";
  std::string alpha = "0.01";
  std::string markdown;                        // check's verdicts, show's series
  std::string html;                            // show's page
  std::int64_t before_run = 0;                 // 0: not bisecting
  std::string figure = "step_time_per_probe";  // bisect
};

std::string database(const HistoryFlags& flags) {
  return flags.db.empty() ? history::default_history_path() : flags.db;
}

// A word of the printed bisect recipe: quoted when a shell would split or expand it (a PostgreSQL
// URL's '?' and '&', a path with spaces).
std::string shell_word(const std::string& word) {
  const bool plain = std::all_of(word.begin(), word.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 ||
           std::string_view("_./:@%+=,-").find(c) != std::string::npos;
  });
  if (plain && !word.empty()) return word;
  std::string quoted = "'";
  for (const char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// show's statement of what each series' search can find: the step found 9 times in 10 once this
// many runs have come after it (as many as the history benchmark's further runs).
constexpr std::size_t kDetectableWithinRuns = 10;

std::string figure_value(history::Figure figure, double value) {
  std::ostringstream text;
  if (figure == history::Figure::kStepTime) {
    text << std::setprecision(4) << value * 1e3 << " ms";
  } else if (figure == history::Figure::kPeakTensorBytes) {
    text << std::fixed << std::setprecision(1) << value / (1024.0 * 1024.0) << " MiB";
  } else {
    text << std::setprecision(4) << value;
  }
  return text.str();
}

std::string describe_change(history::Figure figure, const history::ChangePoint& change) {
  std::ostringstream text;
  text << (history::change_scale(figure) == history::ChangeScale::kRelative
               ? reports::format_percent(change.magnitude, true)
               : figure_value(figure, change.magnitude))
       << " (" << figure_value(figure, change.before) << " -> " << figure_value(figure, change.after) << ", p "
       << std::setprecision(2) << change.p_value << ")";
  return text.str();
}

// The series a step-time series is judged with (host_state_partner: for the raw step time, the
// step time per probe); empty for the other figures.
std::vector<history::SeriesEntry> partner_series(const history::HistoryStore& store, std::int64_t testbed,
                                                 const std::string& cell, history::Figure figure) {
  const auto partner = history::host_state_partner(figure);
  return partner ? store.series(testbed, cell, *partner) : std::vector<history::SeriesEntry>{};
}

// Per change point of one series: "" or, for a raw step-time change the probe moved with, the
// machine's part in it (history/change_attribution.h). `per_probe`: partner_series of a raw
// step-time series, the same cell's step time per probe.
std::vector<std::string> attributions(const history::HistoryStore& store, std::int64_t testbed, const std::string& cell,
                                      history::Figure figure, const std::vector<history::SeriesEntry>& entries,
                                      const std::vector<history::StoredChangePoint>& changes,
                                      const std::vector<history::SeriesEntry>& per_probe) {
  std::vector<std::string> out(changes.size());
  if (figure != history::Figure::kStepTime || changes.empty()) return out;
  const auto per_probe_changes = store.change_points(testbed, cell, history::Figure::kStepTimePerProbe);
  for (std::size_t i = 0; i < changes.size(); ++i) {
    if (const auto ratio = history::machines_change(entries, changes, i, per_probe, per_probe_changes)) {
      std::ostringstream p_value;
      p_value << std::setprecision(2) << ratio->p_value;
      out[i] = "the machine's: the probe moved with it, the step time per probe only " +
               reports::format_percent(ratio->magnitude, true) + " (p " + p_value.str() + ") over the same runs";
    }
  }
  return out;
}

// The machine's part in a change point `add` has just found, as `show` would say it ("" if none).
std::string attribution_of(const history::HistoryStore& store, const std::string& testbed_name,
                           const history::NewChangePoint& change) {
  if (change.figure != history::Figure::kStepTime) return "";
  const auto testbed = store.testbed_named(testbed_name);
  if (!testbed) return "";
  const auto entries = store.series(testbed->id, change.cell, change.figure);
  const auto changes = store.change_points(testbed->id, change.cell, change.figure);
  const auto causes = attributions(store, testbed->id, change.cell, change.figure, entries, changes,
                                   partner_series(store, testbed->id, change.cell, change.figure));
  for (std::size_t i = 0; i < changes.size(); ++i) {
    if (changes[i].run_id == change.run_id) return causes[i];
  }
  return "";
}

int add(const HistoryFlags& flags) {
  // Every report is read before anything is stored: a bad one stores nothing.
  std::vector<reports::Report> runs;
  for (const auto& path : flags.reports) runs.push_back(load_report_input(path, "history add"));
  history::HistoryStore store(database(flags), history::HistoryStore::Access::kWrite);
  std::string out;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const history::RunMetadata metadata{flags.commit, flags.branch, flags.testbed,
                                        std::filesystem::path(flags.reports[i]).filename().string()};
    const auto added = store.add(runs[i], history::report_digest(runs[i]), metadata);
    if (added.duplicate) {
      out += flags.reports[i] + ": already stored as run " + std::to_string(added.run_id) + "; not added again\n";
      continue;
    }
    out += flags.reports[i] + ": run " + std::to_string(added.run_id) + " of testbed " + added.testbed.name + ", " +
           std::to_string(added.cells) + " cells\n";
    if (!added.differing_facts.empty()) {
      out += "  " + history::other_facts_note(added.testbed.name, added.differing_facts) +
             "; its runs and this one are compared all the same\n";
    }
    for (const auto& change : added.change_points) {
      const auto cause = attribution_of(store, added.testbed.name, change);
      out += "  change point: " + change.cell + " " + std::string(history::to_string(change.figure)) + " " +
             describe_change(change.figure, change.change) + " from run " + std::to_string(change.run_id) +
             (cause.empty() ? "" : "; " + cause) + "\n";
    }
  }
  print_to_stdout(out);
  return kExitSuccess;
}

std::vector<history::Figure> figures_of(const HistoryFlags& flags) {
  if (flags.figures.empty()) {
    return {history::Figure::kStepTimePerProbe, history::Figure::kSpeedup, history::Figure::kPeakTensorBytes};
  }
  std::vector<history::Figure> out;
  for (const auto& name : flags.figures) {
    const auto figure = history::figure_named(name);
    if (!figure) throw UsageError("--figure: unknown figure '" + name + "'");
    out.push_back(*figure);
  }
  return out;
}

// The runs of a step-time series the host spent wholly in another state (history/host_state.h), judged
// within each stretch between the series' change points as the search and the gate judge them:
// those runs were left out of both. `partner`: the same runs of host_state_partner(figure), empty
// for a figure that has none.
std::set<std::int64_t> other_host_state_runs(history::Figure figure, const std::vector<history::SeriesEntry>& entries,
                                             const std::vector<history::StoredChangePoint>& changes,
                                             const std::vector<history::SeriesEntry>& partner) {
  std::set<std::int64_t> out;
  if (partner.empty()) return out;
  std::vector<std::int64_t> starts = {0};
  for (const auto& change : changes) starts.push_back(change.run_id);
  starts.push_back(std::numeric_limits<std::int64_t>::max());
  for (std::size_t i = 0; i + 1 < starts.size(); ++i) {
    const auto within = [&](const history::SeriesEntry& entry) {
      return entry.run_id >= starts[i] && entry.run_id < starts[i + 1];
    };
    std::vector<history::SeriesEntry> stretch;
    std::vector<history::SeriesEntry> partner_stretch;
    std::copy_if(entries.begin(), entries.end(), std::back_inserter(stretch), within);
    std::copy_if(partner.begin(), partner.end(), std::back_inserter(partner_stretch), within);
    const auto found = history::runs_in_other_host_state(figure, stretch, partner_stretch);
    out.insert(found.begin(), found.end());
  }
  return out;
}

std::string commit_of(const std::vector<history::SeriesEntry>& entries, std::int64_t run) {
  for (const auto& entry : entries) {
    if (entry.run_id == run) return entry.commit.empty() ? "run " + std::to_string(run) : entry.commit;
  }
  return "run " + std::to_string(run);
}

nlohmann::json show_json(const history::HistoryStore& store, const std::vector<history::TestbedRow>& testbeds,
                         const HistoryFlags& flags) {
  nlohmann::json out = {{"schema", "ampbench.history-show/1"}, {"testbeds", nlohmann::json::array()}};
  for (const auto& row : testbeds) {
    nlohmann::json testbed = {{"name", row.testbed.name},
                              {"fingerprint", row.testbed.fingerprint},
                              {"runs", row.runs},
                              {"facts", nlohmann::json::object()},
                              {"series", nlohmann::json::array()}};
    for (const auto& [fact, value] : row.testbed.facts) testbed["facts"][fact] = value;
    for (const auto& cell : store.cells(row.id)) {
      if (!flags.cell.empty() && cell != flags.cell) continue;
      for (const auto figure : figures_of(flags)) {
        const auto entries = store.series(row.id, cell, figure);
        if (entries.empty()) continue;
        const auto& last = entries.back().value;
        // Unit and texts for the pages (reports::render_history_markdown/html), which format nothing.
        nlohmann::json series = {{"cell", cell},
                                 {"figure", history::to_string(figure)},
                                 {"unit", figure == history::Figure::kStepTime          ? "s"
                                          : figure == history::Figure::kPeakTensorBytes ? "bytes"
                                                                                        : ""},
                                 {"last", figure_value(figure, last.value) + " [" + figure_value(figure, last.ci_low) +
                                              ", " + figure_value(figure, last.ci_high) + "]"},
                                 {"runs", nlohmann::json::array()},
                                 {"change_points", nlohmann::json::array()}};
        const auto changes = store.change_points(row.id, cell, figure);
        // Read once: the host-state rule and, for the raw step time, the attribution both need it.
        const auto partner = partner_series(store, row.id, cell, figure);
        const auto other_state = other_host_state_runs(figure, entries, changes, partner);
        for (const auto& entry : entries) {
          series["runs"].push_back({{"run", entry.run_id},
                                    {"commit", entry.commit},
                                    {"branch", entry.branch},
                                    {"started_utc", entry.started_utc},
                                    {"value", entry.value.value},
                                    {"ci_low", entry.value.ci_low},
                                    {"ci_high", entry.value.ci_high},
                                    {"other_host_state", other_state.count(entry.run_id) > 0}});
        }
        series["other_host_state_runs"] = other_state.size();
        const auto causes = attributions(store, row.id, cell, figure, entries, changes, partner);
        for (std::size_t i = 0; i < changes.size(); ++i) {
          const auto& change = changes[i];
          series["change_points"].push_back(
              {{"run", change.run_id},
               {"previous_run", change.previous_run},
               {"found_at_run", change.found_at_run},
               {"magnitude", change.change.magnitude},
               {"p_value", change.change.p_value},
               {"before", change.change.before},
               {"after", change.change.after},
               {"description", describe_change(figure, change.change)},
               {"attribution", causes[i]},
               {"commits", commit_of(entries, change.previous_run) + ".." + commit_of(entries, change.run_id)}});
        }
        const auto detectable = store.detectable_change(row.id, cell, figure, kDetectableWithinRuns);
        series["detectable_change"] = detectable ? nlohmann::json(*detectable) : nlohmann::json(nullptr);
        series["detectable_within_runs"] = kDetectableWithinRuns;
        series["detectable"] = !detectable ? ""
                               : history::change_scale(figure) == history::ChangeScale::kRelative
                                   ? reports::format_percent(*detectable, false)
                                   : figure_value(figure, *detectable);
        testbed["series"].push_back(std::move(series));
      }
    }
    out["testbeds"].push_back(std::move(testbed));
  }
  return out;
}

// The text form of show_json's document: what the pages show, one line per series and change point.
std::string show_text(const nlohmann::json& shown) {
  std::ostringstream out;
  for (const auto& testbed : shown["testbeds"]) {
    out << "testbed " << testbed["name"].get<std::string>() << " (fingerprint "
        << testbed["fingerprint"].get<std::string>() << ", " << testbed["runs"].get<std::int64_t>() << " runs)\n";
    for (const auto& [fact, value] : testbed["facts"].items())
      out << "  " << fact << ": " << value.get<std::string>() << "\n";
    for (const auto& series : testbed["series"]) {
      out << series["cell"].get<std::string>() << " " << series["figure"].get<std::string>() << ": "
          << reports::history_runs_text(series) << ", last " << series["last"].get<std::string>()
          << reports::detectable_text(series) << "\n";
      for (const auto& change : series["change_points"]) {
        const auto attribution = change["attribution"].get<std::string>();
        out << "  change point at run " << change["run"].get<std::int64_t>() << ": "
            << change["description"].get<std::string>() << (attribution.empty() ? "" : "; " + attribution)
            << "; commits " << change["commits"].get<std::string>() << "\n";
      }
    }
  }
  return out.str();
}

// show's and check's --format, refused before anything is read.
void check_format(const HistoryFlags& flags) {
  if (flags.format != "text" && flags.format != "json") {
    throw UsageError("--format: expected 'text' or 'json', got '" + flags.format + "'");
  }
}

int show(const HistoryFlags& flags) {
  check_format(flags);
  figures_of(flags);  // an unknown --figure is refused before the database is opened
  const history::HistoryStore store(database(flags), history::HistoryStore::Access::kRead);
  auto testbeds = store.testbeds();
  if (!flags.testbed.empty()) {
    const auto row = store.testbed_named(flags.testbed);
    if (!row) throw UsageError("--testbed: no testbed '" + flags.testbed + "' in " + database(flags));
    testbeds = {*row};
  }
  // A cell no testbed shown has is a typo to say so, not an empty page.
  if (!flags.cell.empty() && std::none_of(testbeds.begin(), testbeds.end(), [&](const auto& row) {
        const auto cells = store.cells(row.id);
        return std::find(cells.begin(), cells.end(), flags.cell) != cells.end();
      })) {
    throw UsageError("--cell: no cell '" + flags.cell + "' in " +
                     (flags.testbed.empty() ? database(flags) : "testbed " + flags.testbed));
  }
  const auto shown = show_json(store, testbeds, flags);
  write_output_files({{"--md", flags.markdown, flags.markdown.empty() ? "" : reports::render_history_markdown(shown)},
                      {"--html", flags.html, flags.html.empty() ? "" : reports::render_history_html(shown)}});
  print_to_stdout(flags.format == "json" ? shown.dump(2) + "\n" : show_text(shown));
  return kExitSuccess;
}

int export_runs(const HistoryFlags& flags) {
  const history::HistoryStore store(database(flags), history::HistoryStore::Access::kRead);
  const auto text = history::exported_lines(store.runs());
  if (flags.out.empty() || flags.out == "-") {
    print_to_stdout(text);
  } else {
    write_output_file(flags.out, text, "--out");
  }
  return kExitSuccess;
}

int import_runs(const HistoryFlags& flags) {
  std::ifstream in(flags.in, std::ios::binary);
  if (!in) throw UsageError(flags.in + ": cannot read");
  std::ostringstream text;
  text << in.rdbuf();
  // The whole file is read first: a bad line leaves the database as it was, or not made at all.
  const auto runs = history::read_exported_runs(text.str(), flags.in);
  history::HistoryStore store(database(flags), history::HistoryStore::Access::kWrite);
  std::size_t added = 0;
  // Runs filed under a stored testbed of other facts, counted by note: one line for each.
  std::map<std::string, std::size_t> filed_under_other_facts;
  for (const auto& run : store.import_runs(runs)) {
    if (run.duplicate) continue;
    ++added;
    if (!run.differing_facts.empty()) {
      ++filed_under_other_facts[history::other_facts_note(run.testbed.name, run.differing_facts)];
    }
  }
  const auto stored_before = runs.size() - added;
  std::string out = flags.in + ": " + reports::counted(added, "run", "runs") + " added" +
                    (stored_before > 0 ? ", " + std::to_string(stored_before) + " already stored" : "") + "\n";
  for (const auto& [note, count] : filed_under_other_facts) {
    out += "  " + note + "; " + reports::counted(count, "run", "runs") + " of the file filed under it all the same\n";
  }
  print_to_stdout(out);
  return kExitSuccess;
}

int check(const HistoryFlags& flags) {
  check_format(flags);
  history::HistoryCheckOptions options;
  options.window = flags.window;
  options.min_runs = flags.min_runs;
  options.max_slowdown = parse_fraction(flags.max_slowdown, "--max-slowdown");
  options.max_memory_growth = parse_fraction(flags.max_memory_growth, "--max-memory-growth");
  options.alpha = parse_number_in(flags.alpha, "--alpha", 0.0, 0.5);
  options.cell = flags.cell;
  if (flags.before_run < 0) throw UsageError("--before-run: must be a run id, got " + std::to_string(flags.before_run));
  if (flags.before_run > 0) options.before_run = flags.before_run;
  if (options.min_runs < 2) throw UsageError("--min-runs: must be at least 2, got " + std::to_string(flags.min_runs));
  if (options.window < options.min_runs) throw UsageError("--window: must be at least --min-runs");
  const auto current = load_report_input(flags.current, "history check");
  std::optional<reports::Report> rerun;
  if (!flags.rerun.empty()) rerun = load_report_input(flags.rerun, "--rerun");
  const history::HistoryStore store(database(flags), history::HistoryStore::Access::kRead);
  const auto result = history::check_against_history(store, current, rerun ? &*rerun : nullptr, flags.testbed, options);
  write_output_files(
      {{"--md", flags.markdown, flags.markdown.empty() ? "" : history::render_history_check_markdown(result)}});
  print_to_stdout(flags.format == "json" ? history::render_history_check_json(result)
                                         : history::render_history_check_text(result));
  if (result.regressed > 0) return kExitRegression;
  return result.needs_confirmation > 0 ? kExitNeedsConfirmation : kExitSuccess;
}

// The testbed a command about one cell means: --testbed, else the only testbed that has the cell.
history::TestbedRow testbed_with_cell(const history::HistoryStore& store, const HistoryFlags& flags) {
  if (!flags.testbed.empty()) {
    const auto row = store.testbed_named(flags.testbed);
    if (!row) throw UsageError("--testbed: no testbed '" + flags.testbed + "' in " + database(flags));
    return *row;
  }
  std::vector<history::TestbedRow> holding;
  for (const auto& row : store.testbeds()) {
    const auto cells = store.cells(row.id);
    if (std::find(cells.begin(), cells.end(), flags.cell) != cells.end()) holding.push_back(row);
  }
  if (holding.empty()) throw UsageError("--cell: no cell '" + flags.cell + "' in " + database(flags));
  if (holding.size() > 1) {
    throw UsageError("--testbed: " + std::to_string(holding.size()) + " testbeds have " + flags.cell + " (e.g. " +
                     holding[0].testbed.name + "); name one");
  }
  return holding[0];
}

// The commit range of each change point of one series, and how to bisect it (docs/ci.md).
int bisect(const HistoryFlags& flags) {
  const auto figure = history::figure_named(flags.figure);
  if (!figure) throw UsageError("--figure: unknown figure '" + flags.figure + "'");
  const history::HistoryStore store(database(flags), history::HistoryStore::Access::kRead);
  const auto testbed = testbed_with_cell(store, flags);
  const auto entries = store.series(testbed.id, flags.cell, *figure);
  const auto changes = store.change_points(testbed.id, flags.cell, *figure);
  if (changes.empty()) {
    print_to_stdout("no change point in " + flags.cell + " " + flags.figure + " (" + std::to_string(entries.size()) +
                    " runs of testbed " + testbed.testbed.name + ")\n");
    return kExitSuccess;
  }
  // Only a raw step-time series has a machine's part to read (attributions); the per-probe one's
  // partner would be read for nothing.
  const auto per_probe = *figure == history::Figure::kStepTime ? partner_series(store, testbed.id, flags.cell, *figure)
                                                               : std::vector<history::SeriesEntry>{};
  const auto causes = attributions(store, testbed.id, flags.cell, *figure, entries, changes, per_probe);
  std::string out;
  for (std::size_t i = 0; i < changes.size(); ++i) {
    const auto& change = changes[i];
    const auto good = commit_of(entries, change.previous_run);
    const auto bad = commit_of(entries, change.run_id);
    // The runs stored between the two were left out of the search (history/host_state.h).
    std::string left_out;
    for (const auto& entry : entries) {
      if (entry.run_id > change.previous_run && entry.run_id < change.run_id)
        left_out += (left_out.empty() ? "" : ", ") + std::to_string(entry.run_id);
    }
    out += flags.cell + " " + flags.figure + ": change point at run " + std::to_string(change.run_id) + ", " +
           describe_change(*figure, change.change) + "\n" +
           (causes[i].empty() ? "" : "  " + causes[i] + ": a bisect is unlikely to find a commit (docs/ci.md)\n") +
           (left_out.empty() ? ""
                             : "  run(s) " + left_out +
                                   " between them were left out, the host in another state: the range spans their "
                                   "commits\n") +
           "  between commit " + good + " (run " + std::to_string(change.previous_run) + ", the last before) and " +
           bad + " (run " + std::to_string(change.run_id) + ")\n  git bisect start " + bad + " " + good +
           "\n  git bisect run scripts/history-bisect-step --judge JUDGE --db " +
           shell_word(history::printable_location(database(flags))) + " --testbed " + shell_word(testbed.testbed.name) +
           " --cell " + flags.cell + " --before-run " + std::to_string(change.run_id) + "\n";
  }
  print_to_stdout(out);
  return kExitSuccess;
}

int with_history_errors_as_usage_errors(const std::function<int()>& body) {
  return with_input_errors_as_usage_errors([&body] {
    try {
      return body();
    } catch (const history::HistoryError& error) {
      throw UsageError(error.what());
    }
  });
}

void add_db_option(CLI::App& command, HistoryFlags& flags) {
  command.add_option("--db", flags.db,
                     "The history: an SQLite file, or a PostgreSQL server as postgresql://user@host:port/database "
                     "(the database must exist; a password from ~/.pgpass or $PGPASSWORD); default "
                     "$AMPBENCH_HISTORY_DB, else ampbench-history.sqlite");
}

}  // namespace

Action add_history_command(CLI::App& app) {
  auto* history = app.add_subcommand("history", "Keep runs in a database and find change points over them");
  history->require_subcommand(1);
  auto flags = std::make_shared<HistoryFlags>();

  auto* add_command = history->add_subcommand("add", "Store runs (report.json files) in the history");
  add_command->add_option("reports", flags->reports, "report.json files written by 'ampbench run'")->required();
  add_db_option(*add_command, *flags);
  add_command->add_option("--commit", flags->commit, "The commit measured (default: the report's git revision)");
  add_command->add_option("--branch", flags->branch, "The branch measured");
  add_command->add_option("--testbed", flags->testbed,
                          "Store under this testbed name instead of the one its facts give");

  auto* show_command = history->add_subcommand("show", "Print each cell's series, change points and testbeds");
  add_db_option(*show_command, *flags);
  show_command->add_option("--testbed", flags->testbed, "Only this testbed");
  show_command->add_option("--cell", flags->cell, "Only this cell (workload/mode/device/preset)");
  show_command->add_option("--figure", flags->figures,
                           "Only these figures: step_time_per_probe, step_time_s, speedup, peak_tensor_bytes, "
                           "divergence_ratio (default: the first, speedup and peak_tensor_bytes)");
  show_command->add_option("--format", flags->format, "text or json");
  show_command->add_option("--md", flags->markdown, "Also write the series and change points as Markdown to FILE");
  show_command->add_option("--html", flags->html,
                           "Also write the history page (HTML, self-contained, a chart per series) to FILE");

  auto* export_command = history->add_subcommand("export", "Write every run as JSON lines (what import reads)");
  add_db_option(*export_command, *flags);
  export_command->add_option("--out", flags->out, "Write to FILE instead of stdout");

  auto* import_command = history->add_subcommand("import", "Add the runs of an exported JSON-lines file");
  import_command->add_option("file", flags->in, "A file written by 'history export'")->required();
  add_db_option(*import_command, *flags);

  auto* check_command =
      history->add_subcommand("check", "Judge a run against its testbed's history (exit 1 regressed, 4 run again)");
  check_command->add_option("current", flags->current, "report.json of the run to judge")->required();
  check_command->add_option("--rerun", flags->rerun,
                            "The same code's second run: a cell regresses only when both runs regress it");
  add_db_option(*check_command, *flags);
  check_command->add_option("--testbed", flags->testbed, "Judge against this testbed (default: the run's own)");
  check_command->add_option("--window", flags->window, "At most this many runs since the last change point")
      ->capture_default_str();
  check_command
      ->add_option("--min-runs", flags->min_runs,
                   "Fewer runs than this since the last change point: "
                   "the cell is not compared")
      ->capture_default_str();
  check_command->add_option("--max-slowdown", flags->max_slowdown, "Largest acceptable step-time change")
      ->capture_default_str();
  check_command
      ->add_option("--max-memory-growth", flags->max_memory_growth,
                   "Largest acceptable growth of peak tensor memory over the history's median")
      ->capture_default_str();
  check_command->add_option("--alpha", flags->alpha, "Significance level of the step-time test")->capture_default_str();
  check_command->add_option("--format", flags->format,
                            "text or json (the verdicts for a program; the exit code is the same)");
  check_command->add_option("--md", flags->markdown, "Also write the verdicts as Markdown to FILE");
  check_command->add_option("--cell", flags->cell, "Judge only this cell");
  check_command->add_option("--before-run", flags->before_run,
                            "Judge against the runs before this run id (bisecting the change point there)");

  auto* bisect_command =
      history->add_subcommand("bisect", "Print the commit range of a series' change points and how to bisect it");
  bisect_command->add_option("--cell", flags->cell, "The cell (workload/mode/device/preset)")->required();
  bisect_command->add_option("--figure", flags->figure, "The figure whose change points to print")
      ->capture_default_str();
  bisect_command->add_option("--testbed", flags->testbed, "The testbed (default: the only one with the cell)");
  add_db_option(*bisect_command, *flags);

  return [flags, add_command, show_command, export_command, check_command, bisect_command] {
    return with_history_errors_as_usage_errors([&] {
      if (add_command->parsed()) return add(*flags);
      if (bisect_command->parsed()) return bisect(*flags);
      if (check_command->parsed()) return check(*flags);
      if (show_command->parsed()) return show(*flags);
      if (export_command->parsed()) return export_runs(*flags);
      return import_runs(*flags);
    });
  };
}

}  // namespace ampbench::cli
