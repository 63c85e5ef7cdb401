// The performance history (history_show.h) as text, JSON, Markdown and an HTML page. Every figure
// is formatted here once: the JSON carries the same texts the pages show (the last value, each
// change's description), so the page's script formats nothing.
#include <iomanip>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "ampbench/reports/counted.h"
#include "ampbench/reports/history_show.h"
#include "ampbench/reports/text_format.h"
#include "render/html_assets.h"
#include "render/html_page.h"
#include "render/markdown_table.h"

namespace ampbench::reports {
namespace {

std::string counted_runs(std::size_t runs) { return counted(runs, "run", "runs"); }

const char* unit_name(SeriesUnit unit) {
  return unit == SeriesUnit::kSeconds  ? "s"
         : unit == SeriesUnit::kBytes  ? "bytes"
         : unit == SeriesUnit::kJoules ? "J"
                                       : "";
}

std::string last_value(const HistorySeries& series) {
  const auto& last = series.runs.back();
  return series_value(series.unit, last.value) + " [" + series_value(series.unit, last.ci_low) + ", " +
         series_value(series.unit, last.ci_high) + "]";
}

std::string change_text(const HistorySeries& series, const HistoryChange& change) {
  return describe_change(series.unit, series.relative, change.magnitude, change.before, change.after, change.p_value);
}

std::string attribution_text(const HistoryChange& change) {
  return change.attribution ? describe_attribution(*change.attribution) : "";
}

std::string commits_text(const HistoryChange& change) { return change.first_commit + ".." + change.last_commit; }

// "12.3%" (a relative series) or a value in its unit; empty where the series has too few runs.
std::string detectable_figure(const HistorySeries& series) {
  if (!series.detectable_change) return "";
  return series.relative ? format_percent(*series.detectable_change, false)
                         : series_value(series.unit, *series.detectable_change);
}

// "30 runs", or "30 runs (2 in another state of the host, left out)" for a step-time series with
// runs the change-point search and the gate left out (history/host_state.h).
std::string runs_text(const HistorySeries& series) {
  const auto left_out = series.other_host_state_runs;
  return counted_runs(series.runs.size()) +
         (left_out == 0 ? "" : " (" + std::to_string(left_out) + " in another state of the host, left out)");
}

// "9.4% within 10 runs", or empty where the series has too few runs to say.
std::string detectable_step(const HistorySeries& series) {
  const auto step = detectable_figure(series);
  if (step.empty()) return "";
  return step + " within " + counted_runs(series.detectable_within_runs);
}

std::string testbed_heading(const HistoryTestbed& testbed) {
  return "Testbed " + testbed.testbed.name + " (fingerprint " + testbed.testbed.fingerprint + ", " +
         counted_runs(static_cast<std::size_t>(testbed.runs)) + ")";
}

// The facts by name, as the JSON document orders them.
std::map<std::string, std::string> facts_by_name(const Testbed& testbed) {
  return {testbed.facts.begin(), testbed.facts.end()};
}

std::vector<std::string> facts_lines(const HistoryTestbed& testbed) {
  std::vector<std::string> lines;
  for (const auto& [fact, value] : facts_by_name(testbed.testbed)) lines.push_back(fact + ": " + value);
  return lines;
}

// "run 21: +8.2% (... -> ..., p 1e-05), commits a1..b2" per change point, "none" without one.
std::string change_points_text(const HistorySeries& series) {
  std::string out;
  for (const auto& change : series.change_points) {
    const auto attribution = attribution_text(change);
    out += (out.empty() ? "" : "; ") + std::string("run ") + std::to_string(change.run) + ": " +
           change_text(series, change) + (attribution.empty() ? "" : " (" + attribution + ")") + ", commits " +
           commits_text(change);
  }
  return out.empty() ? "none" : out;
}

detail::Table series_table(const HistoryTestbed& testbed) {
  detail::Table table({"cell", "figure", "runs", "last (95% CI)", "finds a step of (9 times in 10)", "change points"});
  for (const auto& series : testbed.series) {
    table.add_row({series.cell, series.figure, runs_text(series), last_value(series), detectable_step(series),
                   change_points_text(series)});
  }
  return table;
}

nlohmann::json series_json(const HistorySeries& series) {
  nlohmann::json out = {{"cell", series.cell},
                        {"figure", series.figure},
                        {"unit", unit_name(series.unit)},
                        {"last", last_value(series)},
                        {"runs", nlohmann::json::array()},
                        {"change_points", nlohmann::json::array()},
                        {"other_host_state_runs", series.other_host_state_runs},
                        {"detectable_within_runs", series.detectable_within_runs},
                        {"detectable", detectable_figure(series)}};
  for (const auto& run : series.runs) {
    out["runs"].push_back({{"run", run.run},
                           {"commit", run.commit},
                           {"branch", run.branch},
                           {"started_utc", run.started_utc},
                           {"value", run.value},
                           {"ci_low", run.ci_low},
                           {"ci_high", run.ci_high},
                           {"other_host_state", run.other_host_state}});
  }
  for (const auto& change : series.change_points) {
    out["change_points"].push_back({{"run", change.run},
                                    {"previous_run", change.previous_run},
                                    {"found_at_run", change.found_at_run},
                                    {"magnitude", change.magnitude},
                                    {"p_value", change.p_value},
                                    {"before", change.before},
                                    {"after", change.after},
                                    {"description", change_text(series, change)},
                                    {"attribution", attribution_text(change)},
                                    {"commits", commits_text(change)}});
  }
  out["detectable_change"] =
      series.detectable_change ? nlohmann::json(*series.detectable_change) : nlohmann::json(nullptr);
  return out;
}

nlohmann::json show_json(const HistoryShow& shown) {
  nlohmann::json out = {{"schema", "ampbench.history-show/1"}, {"testbeds", nlohmann::json::array()}};
  for (const auto& testbed : shown.testbeds) {
    nlohmann::json entry = {{"name", testbed.testbed.name},
                            {"fingerprint", testbed.testbed.fingerprint},
                            {"runs", testbed.runs},
                            {"facts", nlohmann::json::object()},
                            {"series", nlohmann::json::array()}};
    for (const auto& [fact, value] : testbed.testbed.facts) entry["facts"][fact] = value;
    for (const auto& series : testbed.series) entry["series"].push_back(series_json(series));
    out["testbeds"].push_back(std::move(entry));
  }
  return out;
}

}  // namespace

std::string series_value(SeriesUnit unit, double value) {
  std::ostringstream text;
  if (unit == SeriesUnit::kSeconds) {
    text << std::setprecision(4) << value * 1e3 << " ms";
  } else if (unit == SeriesUnit::kBytes) {
    text << std::fixed << std::setprecision(1) << value / (1024.0 * 1024.0) << " MiB";
  } else if (unit == SeriesUnit::kJoules) {
    text << std::setprecision(4) << value << " J";
  } else {
    text << std::setprecision(4) << value;
  }
  return text.str();
}

std::string describe_change(SeriesUnit unit, bool relative, double magnitude, double before, double after,
                            double p_value) {
  std::ostringstream text;
  text << (relative ? format_percent(magnitude, true) : series_value(unit, magnitude)) << " ("
       << series_value(unit, before) << " -> " << series_value(unit, after) << ", p " << std::setprecision(2) << p_value
       << ")";
  return text.str();
}

std::string describe_attribution(const MachineAttribution& attribution) {
  std::ostringstream p_value;
  p_value << std::setprecision(2) << attribution.p_value;
  return "the machine's: the probe moved with it, the step time per probe only " +
         format_percent(attribution.magnitude, true) + " (p " + p_value.str() + ") over the same runs";
}

std::string render_history_text(const HistoryShow& shown) {
  std::ostringstream out;
  for (const auto& testbed : shown.testbeds) {
    out << "testbed " << testbed.testbed.name << " (fingerprint " << testbed.testbed.fingerprint << ", " << testbed.runs
        << " runs)\n";
    for (const auto& [fact, value] : facts_by_name(testbed.testbed)) out << "  " << fact << ": " << value << "\n";
    for (const auto& series : testbed.series) {
      const auto step = detectable_step(series);
      out << series.cell << " " << series.figure << ": " << runs_text(series) << ", last " << last_value(series)
          << (step.empty() ? "" : ", finds a step of " + step + " (9 times in 10)") << "\n";
      for (const auto& change : series.change_points) {
        const auto attribution = attribution_text(change);
        out << "  change point at run " << change.run << ": " << change_text(series, change)
            << (attribution.empty() ? "" : "; " + attribution) << "; commits " << commits_text(change) << "\n";
      }
    }
  }
  return out.str();
}

std::string render_history_json(const HistoryShow& shown) { return show_json(shown).dump(2) + "\n"; }

std::string render_history_markdown(const HistoryShow& shown) {
  std::string out = "## ampbench performance history\n";
  if (shown.testbeds.empty()) return out + "\nNo runs stored.\n";
  for (const auto& testbed : shown.testbeds) {
    out += "\n### " + testbed_heading(testbed) + "\n\n";
    for (const auto& line : facts_lines(testbed)) out += "- " + line + "\n";
    out += "\n" + detail::markdown_table(series_table(testbed));
  }
  return out;
}

std::string render_history_html(const HistoryShow& shown) {
  std::string page = detail::html_page_head("ampbench performance history") + detail::html_render_status();
  if (shown.testbeds.empty()) page += "<p class=\"note\">No runs stored.</p>\n";
  for (std::size_t i = 0; i < shown.testbeds.size(); ++i) {
    const auto& testbed = shown.testbeds[i];
    page += "<section class=\"testbed\" data-testbed=\"" + std::to_string(i) + "\">\n<h2>" +
            detail::html_escaped(testbed_heading(testbed)) + "</h2>\n<ul class=\"note\">\n";
    for (const auto& line : facts_lines(testbed)) page += "<li>" + detail::html_escaped(line) + "</li>\n";
    page += "</ul>\n" + detail::html_table("history", series_table(testbed)) +
            "<div class=\"charts\" id=\"history-charts-" + std::to_string(i) + "\"></div>\n</section>\n";
  }
  page +=
      "<h2>How to read this</h2>\n<ul class=\"note\">\n"
      "<li>One chart per cell and figure: each run's value with its 95% interval (the whiskers), in the order "
      "the runs were added.</li>\n"
      "<li>A dashed red line marks a change point: the first run of a new level, with its magnitude and the "
      "commits between the last run before it and the first after (where to bisect). A change point is "
      "searched for over the runs since the last one, and once stored it never moves.</li>\n"
      "<li>The raw step time is searched at equal probe: each run's step time with the machine probe's share "
      "taken out at the slope the runs show, so a change point's magnitude and levels are at the runs' mean probe "
      "and may differ from the step the raw values show across it.</li>\n"
      "<li>&ldquo;Finds a step of&rdquo;: the least change of a series' level that its search calls 9 times "
      "in 10 within the runs the column names after the change, from how the runs since its last change point "
      "vary (at the search's significance level, never under its minimum magnitude). A smaller change is found "
      "later or not at all; on a noisy runner that is the honest resolution of its history.</li>\n"
      "<li>A raw step-time change point marked &ldquo;the machine&rsquo;s&rdquo; moved with the machine probe: "
      "the step time per probe, over the same runs, moved less than half as far and has no change point there. "
      "The host changed speed, not the code.</li>\n"
      "<li>A hollow point in a step-time series is a run the host spent wholly in another state: its machine "
      "probe took over 1.3x (or under 1/1.3) the median of the runs around it. Its steps follow the probe by "
      "cell, so the change-point search and the gate leave it out; a change found after it has the last run "
      "kept before it as its previous run.</li>\n</ul>\n";
  return page + detail::html_page_tail(show_json(shown).dump(), detail::kHtmlHistoryScript);
}

}  // namespace ampbench::reports
