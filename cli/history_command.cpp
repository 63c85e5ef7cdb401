// `ampbench history add|check|show|bisect|export|import`: every run kept in a database (an SQLite
// file or a PostgreSQL server, --db or $AMPBENCH_HISTORY_DB), compared only within its testbed,
// with the change points found in each cell's series, and the CI gate against that history (exit 1
// regressed, 4 needs a rerun). A report or database that cannot be used is an error naming it,
// exit 2, and nothing stored.
#include <algorithm>
#include <fstream>
#include <memory>
#include <sstream>

#include "ampbench/history/exported_runs.h"
#include "ampbench/history/history_check.h"
#include "ampbench/history/history_show.h"
#include "ampbench/history/history_store.h"
#include "ampbench/history/history_stored.h"
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
  std::string html;                            // show's page, check's verdicts
  std::int64_t before_run = 0;                 // 0: not bisecting
  std::string figure = "step_time_per_probe";  // bisect
};

std::string database(const HistoryFlags& flags) {
  return flags.db.empty() ? history::default_history_path() : flags.db;
}

int add(const HistoryFlags& flags) {
  // Every report is read before anything is stored: a bad one stores nothing.
  std::vector<reports::Report> runs;
  for (const auto& path : flags.reports) runs.push_back(load_report_input(path, "history add"));
  history::HistoryStore store(database(flags), history::HistoryStore::Access::kWrite);
  std::vector<reports::StoredReport> stored;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const history::RunMetadata metadata{flags.commit, flags.branch, flags.testbed,
                                        std::filesystem::path(flags.reports[i]).filename().string()};
    const auto added = store.add(runs[i], history::report_digest(runs[i]), metadata);
    stored.push_back(history::stored_report(store, flags.reports[i], added));
  }
  print_to_stdout(reports::render_stored_reports_text(stored));
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

int show(const HistoryFlags& flags) {
  require_text_or_json(flags.format);
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
  const auto shown = history::show_history(store, testbeds, flags.cell, figures_of(flags));
  write_output_files({{"--md", flags.markdown, flags.markdown.empty() ? "" : reports::render_history_markdown(shown)},
                      {"--html", flags.html, flags.html.empty() ? "" : reports::render_history_html(shown)}});
  print_to_stdout(flags.format == "json" ? reports::render_history_json(shown) : reports::render_history_text(shown));
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
  print_to_stdout(
      reports::render_imported_text(history::imported_file(flags.in, runs.size(), store.import_runs(runs))));
  return kExitSuccess;
}

int check(const HistoryFlags& flags) {
  require_text_or_json(flags.format);
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
      {{"--md", flags.markdown, flags.markdown.empty() ? "" : reports::render_history_check_markdown(result)},
       {"--html", flags.html, flags.html.empty() ? "" : reports::render_history_check_html(result)}});
  print_to_stdout(flags.format == "json" ? reports::render_history_check_json(result)
                                         : reports::render_history_check_text(result));
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
  auto shown = history::show_history(store, {testbed}, flags.cell, {*figure});
  auto& found = shown.testbeds.front().series;
  reports::HistorySeries series = found.empty() ? reports::HistorySeries{} : std::move(found.front());
  series.cell = flags.cell;
  series.figure = flags.figure;
  print_to_stdout(
      reports::render_bisect_recipe(series, testbed.testbed.name, history::printable_location(database(flags))));
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

CLI::App* add_history_add(CLI::App& history, HistoryFlags& flags) {
  auto* add_command = history.add_subcommand("add", "Store runs (report.json files) in the history");
  add_command->add_option("reports", flags.reports, "report.json files written by 'ampbench run'")->required();
  add_db_option(*add_command, flags);
  add_command->add_option("--commit", flags.commit, "The commit measured (default: the report's git revision)");
  add_command->add_option("--branch", flags.branch, "The branch measured");
  add_command->add_option("--testbed", flags.testbed,
                          "Store under this testbed name instead of the one its facts give");
  return add_command;
}

CLI::App* add_history_show(CLI::App& history, HistoryFlags& flags) {
  auto* show_command = history.add_subcommand("show", "Print each cell's series, change points and testbeds");
  add_db_option(*show_command, flags);
  show_command->add_option("--testbed", flags.testbed, "Only this testbed");
  show_command->add_option("--cell", flags.cell, "Only this cell (workload/mode/device/preset)");
  show_command->add_option("--figure", flags.figures,
                           "Only these figures: step_time_per_probe, step_time_s, speedup, peak_tensor_bytes, "
                           "divergence_ratio (default: the first, speedup and peak_tensor_bytes)");
  show_command->add_option("--format", flags.format, "text or json");
  show_command->add_option("--md", flags.markdown, "Also write the series and change points as Markdown to FILE");
  show_command->add_option("--html", flags.html,
                           "Also write the history page (HTML, self-contained, a chart per series) to FILE");
  return show_command;
}

CLI::App* add_history_export(CLI::App& history, HistoryFlags& flags) {
  auto* export_command = history.add_subcommand("export", "Write every run as JSON lines (what import reads)");
  add_db_option(*export_command, flags);
  export_command->add_option("--out", flags.out, "Write to FILE instead of stdout");
  return export_command;
}

CLI::App* add_history_import(CLI::App& history, HistoryFlags& flags) {
  auto* import_command = history.add_subcommand("import", "Add the runs of an exported JSON-lines file");
  import_command->add_option("file", flags.in, "A file written by 'history export'")->required();
  add_db_option(*import_command, flags);
  return import_command;
}

CLI::App* add_history_check(CLI::App& history, HistoryFlags& flags) {
  auto* check_command =
      history.add_subcommand("check", "Judge a run against its testbed's history (exit 1 regressed, 4 run again)");
  check_command->add_option("current", flags.current, "report.json of the run to judge")->required();
  check_command->add_option("--rerun", flags.rerun,
                            "The same code's second run: a cell regresses only when both runs regress it");
  add_db_option(*check_command, flags);
  check_command->add_option("--testbed", flags.testbed, "Judge against this testbed (default: the run's own)");
  check_command->add_option("--window", flags.window, "At most this many runs since the last change point")
      ->capture_default_str();
  check_command
      ->add_option("--min-runs", flags.min_runs,
                   "Fewer runs than this since the last change point: "
                   "the cell is not compared")
      ->capture_default_str();
  check_command->add_option("--max-slowdown", flags.max_slowdown, "Largest acceptable step-time change")
      ->capture_default_str();
  check_command
      ->add_option("--max-memory-growth", flags.max_memory_growth,
                   "Largest acceptable growth of peak tensor memory over the history's median")
      ->capture_default_str();
  check_command->add_option("--alpha", flags.alpha, "Significance level of the step-time test")->capture_default_str();
  check_command->add_option("--format", flags.format,
                            "text or json (the verdicts for a program; the exit code is the same)");
  check_command->add_option("--md", flags.markdown, "Also write the verdicts as Markdown to FILE");
  check_command->add_option("--html", flags.html, "Also write the verdicts as a self-contained HTML page to FILE");
  check_command->add_option("--cell", flags.cell, "Judge only this cell");
  check_command->add_option("--before-run", flags.before_run,
                            "Judge against the runs before this run id (bisecting the change point there)");
  return check_command;
}

CLI::App* add_history_bisect(CLI::App& history, HistoryFlags& flags) {
  auto* bisect_command =
      history.add_subcommand("bisect", "Print the commit range of a series' change points and how to bisect it");
  bisect_command->add_option("--cell", flags.cell, "The cell (workload/mode/device/preset)")->required();
  bisect_command->add_option("--figure", flags.figure, "The figure whose change points to print")
      ->capture_default_str();
  bisect_command->add_option("--testbed", flags.testbed, "The testbed (default: the only one with the cell)");
  add_db_option(*bisect_command, flags);
  return bisect_command;
}

}  // namespace

Action add_history_command(CLI::App& app) {
  auto* history = app.add_subcommand("history", "Keep runs in a database and find change points over them");
  history->require_subcommand(1);
  auto flags = std::make_shared<HistoryFlags>();
  auto* add_command = add_history_add(*history, *flags);
  auto* show_command = add_history_show(*history, *flags);
  auto* export_command = add_history_export(*history, *flags);
  add_history_import(*history, *flags);
  auto* check_command = add_history_check(*history, *flags);
  auto* bisect_command = add_history_bisect(*history, *flags);

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
