// The performance history's pages (`ampbench history show --md F --html F`), rendered from the
// document `history show --format json` prints (schema "ampbench.history-show/1"): per testbed its
// facts, per series (a cell's figure over the runs) each run's value with its interval and each
// change point with its magnitude and the commit range it falls in. The document carries its own
// texts (the last value, each change's description) and each series' unit: nothing is formatted
// twice. The HTML page is self-contained (one SVG chart per series, drawn by history.js).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace ampbench::reports {

// "30 runs", or "30 runs (2 in another state of the host, left out)" for a step-time series with
// runs the change-point search and the gate left out (history/host_state.h).
[[nodiscard]] std::string history_runs_text(const nlohmann::json& series);
// ", finds a step of 9.4% within 10 runs (9 times in 10)" from a series' "detectable" and
// "detectable_within_runs" (history show's document); empty where the series has no such figure.
[[nodiscard]] std::string detectable_text(const nlohmann::json& series);
[[nodiscard]] std::string render_history_markdown(const nlohmann::json& shown);
[[nodiscard]] std::string render_history_html(const nlohmann::json& shown);

}  // namespace ampbench::reports
