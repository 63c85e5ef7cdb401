// history bisect's output (history_show.h): each change point of one series with the commits it
// falls between and the commands that bisect it.
#include <algorithm>
#include <cctype>
#include <string_view>

#include "ampbench/reports/history_show.h"

namespace ampbench::reports {
namespace {

// A word of the printed recipe: quoted when a shell would split or expand it (a PostgreSQL URL's
// '?' and '&', a path with spaces).
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

// The runs stored between the change's two were left out of the search (history/host_state.h).
std::string left_out_runs(const HistorySeries& series, const HistoryChange& change) {
  std::string out;
  for (const auto& run : series.runs) {
    if (run.run > change.previous_run && run.run < change.run) {
      out += (out.empty() ? "" : ", ") + std::to_string(run.run);
    }
  }
  return out;
}

std::string change_recipe(const HistorySeries& series, const HistoryChange& change, const std::string& testbed,
                          const std::string& database) {
  const auto& good = change.first_commit;
  const auto& bad = change.last_commit;
  const auto left_out = left_out_runs(series, change);
  return series.cell + " " + series.figure + ": change point at run " + std::to_string(change.run) + ", " +
         describe_change(series.unit, series.relative, change.magnitude, change.before, change.after, change.p_value) +
         "\n" +
         (change.attribution ? "  " + describe_attribution(*change.attribution) +
                                   ": a bisect is unlikely to find a commit (docs/ci.md)\n"
                             : "") +
         (left_out.empty() ? ""
                           : "  run(s) " + left_out +
                                 " between them were left out, the host in another state: the range spans their "
                                 "commits\n") +
         "  between commit " + good + " (run " + std::to_string(change.previous_run) + ", the last before) and " + bad +
         " (run " + std::to_string(change.run) + ")\n  git bisect start " + bad + " " + good +
         "\n  git bisect run scripts/history-bisect-step --judge JUDGE --db " + shell_word(database) + " --testbed " +
         shell_word(testbed) + " --cell " + series.cell + " --before-run " + std::to_string(change.run) + "\n";
}

}  // namespace

std::string render_bisect_recipe(const HistorySeries& series, const std::string& testbed, const std::string& database) {
  if (series.change_points.empty()) {
    return "no change point in " + series.cell + " " + series.figure + " (" + std::to_string(series.runs.size()) +
           " runs of testbed " + testbed + ")\n";
  }
  std::string out;
  for (const auto& change : series.change_points) out += change_recipe(series, change, testbed, database);
  return out;
}

}  // namespace ampbench::reports
