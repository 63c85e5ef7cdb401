#include "ampbench/reports/history_page.h"

#include "ampbench/reports/counted.h"
#include "html_assets.h"
#include "html_page.h"
#include "markdown_table.h"

namespace ampbench::reports {
namespace {

std::string counted_runs(std::size_t runs) { return counted(runs, "run", "runs"); }

std::string testbed_heading(const nlohmann::json& testbed) {
  return "Testbed " + testbed["name"].get<std::string>() + " (fingerprint " +
         testbed["fingerprint"].get<std::string>() + ", " + counted_runs(testbed["runs"].get<std::size_t>()) + ")";
}

std::vector<std::string> facts_lines(const nlohmann::json& testbed) {
  std::vector<std::string> lines;
  for (const auto& [fact, value] : testbed["facts"].items()) lines.push_back(fact + ": " + value.get<std::string>());
  return lines;
}

// "9.4% within 10 runs", or empty where the series has too few runs to say.
std::string detectable_step(const nlohmann::json& series) {
  const auto step = series.value("detectable", std::string());
  if (step.empty()) return "";
  return step + " within " + counted_runs(series.value("detectable_within_runs", std::size_t{0}));
}

// "run 21: +8.2% (... -> ..., p 1e-05), commits a1..b2" per change point, "none" without one.
std::string change_points_text(const nlohmann::json& series) {
  std::string out;
  for (const auto& change : series["change_points"]) {
    const auto attribution = change.value("attribution", std::string());
    out += (out.empty() ? "" : "; ") + std::string("run ") + std::to_string(change["run"].get<std::int64_t>()) + ": " +
           change["description"].get<std::string>() + (attribution.empty() ? "" : " (" + attribution + ")") +
           ", commits " + change["commits"].get<std::string>();
  }
  return out.empty() ? "none" : out;
}

std::vector<std::vector<std::string>> series_rows(const nlohmann::json& testbed) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& series : testbed["series"]) {
    rows.push_back({series["cell"].get<std::string>(), series["figure"].get<std::string>(), history_runs_text(series),
                    series["last"].get<std::string>(), detectable_step(series), change_points_text(series)});
  }
  return rows;
}

const std::vector<std::string> kSeriesHeader = {
    "cell", "figure", "runs", "last (95% CI)", "finds a step of (9 times in 10)", "change points"};

}  // namespace

std::string history_runs_text(const nlohmann::json& series) {
  const auto left_out = series.value("other_host_state_runs", std::size_t{0});
  return counted_runs(series["runs"].size()) +
         (left_out == 0 ? "" : " (" + std::to_string(left_out) + " in another state of the host, left out)");
}

std::string detectable_text(const nlohmann::json& series) {
  const auto step = detectable_step(series);
  return step.empty() ? "" : ", finds a step of " + step + " (9 times in 10)";
}

std::string render_history_markdown(const nlohmann::json& shown) {
  std::string out = "## ampbench performance history\n";
  if (shown["testbeds"].empty()) return out + "\nNo runs stored.\n";
  for (const auto& testbed : shown["testbeds"]) {
    out += "\n### " + testbed_heading(testbed) + "\n\n";
    for (const auto& line : facts_lines(testbed)) out += "- " + line + "\n";
    detail::MarkdownTable table(kSeriesHeader);
    for (auto& row : series_rows(testbed)) table.add_row(std::move(row));
    out += "\n" + table.render();
  }
  return out;
}

std::string render_history_html(const nlohmann::json& shown) {
  std::string page = detail::html_page_head("ampbench performance history") + detail::html_render_status();
  if (shown["testbeds"].empty()) page += "<p class=\"note\">No runs stored.</p>\n";
  for (std::size_t i = 0; i < shown["testbeds"].size(); ++i) {
    const auto& testbed = shown["testbeds"][i];
    page += "<section class=\"testbed\" data-testbed=\"" + std::to_string(i) + "\">\n<h2>" +
            detail::html_escaped(testbed_heading(testbed)) + "</h2>\n<ul class=\"note\">\n";
    for (const auto& line : facts_lines(testbed)) page += "<li>" + detail::html_escaped(line) + "</li>\n";
    page += "</ul>\n" + detail::html_table("history", kSeriesHeader, series_rows(testbed)) +
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
  return page + detail::html_page_tail(shown.dump(), detail::kHtmlHistoryScript);
}

}  // namespace ampbench::reports
