// The document `history show` returns: per testbed its facts, per series (a cell's figure over the
// runs) each run's value with its interval and each change point with its magnitude, the commit
// range it falls in and the machine's part in it. The history builds it (history/history_show.h);
// the renderers here print it as text, JSON (schema "ampbench.history-show/1"), Markdown and a
// self-contained HTML page (one SVG chart per series, drawn by history.js from the JSON).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ampbench/reports/testbed.h"

namespace ampbench::reports {

// How a series' values read: seconds (shown in ms), bytes (shown in MiB) or a plain number.
enum class SeriesUnit { kSeconds, kBytes, kJoules, kPlain };

struct HistoryRun {
  std::int64_t run = 0;
  std::string commit;
  std::string branch;
  std::string started_utc;
  double value = 0.0;
  double ci_low = 0.0;
  double ci_high = 0.0;
  bool other_host_state = false;  // the host spent it wholly in another state: left out
};

// A raw step-time change the machine probe moved with: the step time per probe over the same
// runs moved by only `magnitude` (its test's p).
struct MachineAttribution {
  double magnitude = 0.0;
  double p_value = 1.0;
};

struct HistoryChange {
  std::int64_t run = 0;           // the first run after the change
  std::int64_t previous_run = 0;  // the last run before it
  std::int64_t found_at_run = 0;  // the run whose addition found it
  double magnitude = 0.0;         // relative for relative series, else after - before
  double p_value = 1.0;
  double before = 0.0;
  double after = 0.0;
  std::optional<MachineAttribution> attribution;
  std::string first_commit;  // the commit range to bisect: (previous run's, this run's]; "run N" without one
  std::string last_commit;
};

struct HistorySeries {
  std::string cell;
  std::string figure;
  SeriesUnit unit = SeriesUnit::kPlain;
  bool relative = true;  // changes are ratios (step times, speedups, memory), else differences
  std::vector<HistoryRun> runs;
  std::vector<HistoryChange> change_points;
  std::size_t other_host_state_runs = 0;
  // The least step its search finds 9 times in 10 within `detectable_within_runs` runs after it.
  std::optional<double> detectable_change;
  std::size_t detectable_within_runs = 0;
};

struct HistoryTestbed {
  Testbed testbed;
  std::int64_t runs = 0;
  std::vector<HistorySeries> series;
};

struct HistoryShow {
  std::vector<HistoryTestbed> testbeds;
};

// "12.35 ms", "1.4 MiB", "2.513": a value of the series as the pages show it.
[[nodiscard]] std::string series_value(SeriesUnit unit, double value);
// "+8.2% (1.234 ms -> 1.335 ms, p 1e-05)": a change point's magnitude and levels.
[[nodiscard]] std::string describe_change(SeriesUnit unit, bool relative, double magnitude, double before, double after,
                                          double p_value);
// "the machine's: the probe moved with it, the step time per probe only +1.0% (p 0.5) over the same runs".
[[nodiscard]] std::string describe_attribution(const MachineAttribution& attribution);

[[nodiscard]] std::string render_history_text(const HistoryShow& shown);
[[nodiscard]] std::string render_history_json(const HistoryShow& shown);
[[nodiscard]] std::string render_history_markdown(const HistoryShow& shown);
[[nodiscard]] std::string render_history_html(const HistoryShow& shown);

// history bisect's recipe for one series: per change point the commits it falls between (and the
// runs left out between them) and the git bisect commands over scripts/history-bisect-step;
// "no change point ..." without one. `database` as printed (a password left out).
[[nodiscard]] std::string render_bisect_recipe(const HistorySeries& series, const std::string& testbed,
                                               const std::string& database);

}  // namespace ampbench::reports
