// history show's document (history_show.h): read from the store, decided here, printed by reports.
#include "ampbench/history/history_show.h"

#include <algorithm>
#include <iterator>
#include <limits>
#include <set>

#include "ampbench/history/change_attribution.h"
#include "ampbench/history/host_state.h"

namespace ampbench::history {
namespace {

// The series a step-time series is judged with (host_state_partner: for the raw step time, the
// step time per probe); empty for the other figures.
std::vector<SeriesEntry> partner_series(const HistoryStore& store, std::int64_t testbed, const std::string& cell,
                                        Figure figure) {
  const auto partner = host_state_partner(figure);
  return partner ? store.series(testbed, cell, *partner) : std::vector<SeriesEntry>{};
}

// Per change point of one series: nothing or, for a raw step-time change the probe moved with, the
// machine's part in it (change_attribution.h). `per_probe`: partner_series of a raw step-time
// series, the same cell's step time per probe.
std::vector<std::optional<reports::MachineAttribution>> attributions(const HistoryStore& store, std::int64_t testbed,
                                                                     const std::string& cell, Figure figure,
                                                                     const std::vector<SeriesEntry>& entries,
                                                                     const std::vector<StoredChangePoint>& changes,
                                                                     const std::vector<SeriesEntry>& per_probe) {
  std::vector<std::optional<reports::MachineAttribution>> out(changes.size());
  if (figure != Figure::kStepTime || changes.empty()) return out;
  const auto per_probe_changes = store.change_points(testbed, cell, Figure::kStepTimePerProbe);
  for (std::size_t i = 0; i < changes.size(); ++i) {
    if (const auto ratio = machines_change(entries, changes, i, per_probe, per_probe_changes)) {
      out[i] = reports::MachineAttribution{ratio->magnitude, ratio->p_value};
    }
  }
  return out;
}

// The runs of a step-time series the host spent wholly in another state (host_state.h), judged
// within each stretch between the series' change points as the search and the gate judge them:
// those runs were left out of both. `partner`: the same runs of host_state_partner(figure), empty
// for a figure that has none.
std::set<std::int64_t> other_host_state_runs(Figure figure, const std::vector<SeriesEntry>& entries,
                                             const std::vector<StoredChangePoint>& changes,
                                             const std::vector<SeriesEntry>& partner) {
  std::set<std::int64_t> out;
  if (partner.empty()) return out;
  std::vector<std::int64_t> starts = {0};
  for (const auto& change : changes) starts.push_back(change.run_id);
  starts.push_back(std::numeric_limits<std::int64_t>::max());
  for (std::size_t i = 0; i + 1 < starts.size(); ++i) {
    const auto within = [&](const SeriesEntry& entry) {
      return entry.run_id >= starts[i] && entry.run_id < starts[i + 1];
    };
    std::vector<SeriesEntry> stretch;
    std::vector<SeriesEntry> partner_stretch;
    std::copy_if(entries.begin(), entries.end(), std::back_inserter(stretch), within);
    std::copy_if(partner.begin(), partner.end(), std::back_inserter(partner_stretch), within);
    const auto found = runs_in_other_host_state(figure, stretch, partner_stretch);
    out.insert(found.begin(), found.end());
  }
  return out;
}

std::string commit_of(const std::vector<SeriesEntry>& entries, std::int64_t run) {
  for (const auto& entry : entries) {
    if (entry.run_id == run) return entry.commit.empty() ? "run " + std::to_string(run) : entry.commit;
  }
  return "run " + std::to_string(run);
}

reports::HistorySeries series_of(const HistoryStore& store, std::int64_t testbed, const std::string& cell,
                                 Figure figure, const std::vector<SeriesEntry>& entries) {
  reports::HistorySeries series;
  series.cell = cell;
  series.figure = std::string(to_string(figure));
  series.unit = unit_of(figure);
  series.relative = change_scale(figure) == ChangeScale::kRelative;
  const auto changes = store.change_points(testbed, cell, figure);
  // Read once: the host-state rule and, for the raw step time, the attribution both need it.
  const auto partner = partner_series(store, testbed, cell, figure);
  const auto other_state = other_host_state_runs(figure, entries, changes, partner);
  for (const auto& entry : entries) {
    series.runs.push_back({entry.run_id, entry.commit, entry.branch, entry.started_utc, entry.value.value,
                           entry.value.ci_low, entry.value.ci_high, other_state.count(entry.run_id) > 0});
  }
  series.other_host_state_runs = other_state.size();
  const auto causes = attributions(store, testbed, cell, figure, entries, changes, partner);
  for (std::size_t i = 0; i < changes.size(); ++i) {
    const auto& change = changes[i];
    series.change_points.push_back({change.run_id, change.previous_run, change.found_at_run, change.change.magnitude,
                                    change.change.p_value, change.change.before, change.change.after, causes[i],
                                    commit_of(entries, change.previous_run), commit_of(entries, change.run_id)});
  }
  series.detectable_change = store.detectable_change(testbed, cell, figure, kDetectableWithinRuns);
  series.detectable_within_runs = kDetectableWithinRuns;
  return series;
}

}  // namespace

reports::SeriesUnit unit_of(Figure figure) {
  return figure == Figure::kStepTime          ? reports::SeriesUnit::kSeconds
         : figure == Figure::kPeakTensorBytes ? reports::SeriesUnit::kBytes
         : figure == Figure::kEnergyPerStep   ? reports::SeriesUnit::kJoules
                                              : reports::SeriesUnit::kPlain;
}

reports::HistoryShow show_history(const HistoryStore& store, const std::vector<TestbedRow>& testbeds,
                                  const std::string& cell, const std::vector<Figure>& figures) {
  reports::HistoryShow shown;
  for (const auto& row : testbeds) {
    reports::HistoryTestbed testbed{row.testbed, row.runs, {}};
    for (const auto& name : store.cells(row.id)) {
      if (!cell.empty() && name != cell) continue;
      for (const auto figure : figures) {
        const auto entries = store.series(row.id, name, figure);
        if (!entries.empty()) testbed.series.push_back(series_of(store, row.id, name, figure, entries));
      }
    }
    shown.testbeds.push_back(std::move(testbed));
  }
  return shown;
}

std::optional<reports::MachineAttribution> attribution_of(const HistoryStore& store, const std::string& testbed_name,
                                                          const NewChangePoint& change) {
  if (change.figure != Figure::kStepTime) return std::nullopt;
  const auto testbed = store.testbed_named(testbed_name);
  if (!testbed) return std::nullopt;
  const auto entries = store.series(testbed->id, change.cell, change.figure);
  const auto changes = store.change_points(testbed->id, change.cell, change.figure);
  const auto causes = attributions(store, testbed->id, change.cell, change.figure, entries, changes,
                                   partner_series(store, testbed->id, change.cell, change.figure));
  for (std::size_t i = 0; i < changes.size(); ++i) {
    if (changes[i].run_id == change.run_id) return causes[i];
  }
  return std::nullopt;
}

}  // namespace ampbench::history
