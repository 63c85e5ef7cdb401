#include "ampbench/history/host_state.h"

#include <algorithm>
#include <map>

#include "ampbench/reports/check.h"
#include "ampbench/reports/stats.h"

namespace ampbench::history {

std::set<std::int64_t> runs_in_other_host_state(const std::vector<SeriesEntry>& step_time,
                                                const std::vector<SeriesEntry>& per_probe) {
  std::map<std::int64_t, double> raw_by_run;
  for (const auto& entry : step_time) raw_by_run[entry.run_id] = entry.value.value;
  std::map<std::int64_t, double> probe_by_run;
  for (const auto& entry : per_probe) {
    if (const auto it = raw_by_run.find(entry.run_id); it != raw_by_run.end())
      probe_by_run[entry.run_id] = it->second / entry.value.value;
  }
  std::set<std::int64_t> other_state;
  if (probe_by_run.size() < 2) return other_state;
  std::vector<std::int64_t> runs;
  std::vector<double> probes;
  for (const auto& [run, probe] : probe_by_run) {
    runs.push_back(run);
    probes.push_back(probe);
  }
  for (std::size_t i = 0; i < probes.size(); ++i) {
    const auto first = i - std::min(i, kHostStateNeighbours);
    const auto last = std::min(probes.size(), i + kHostStateNeighbours + 1);
    const double usual = reports::median(std::vector<double>(probes.begin() + static_cast<std::ptrdiff_t>(first),
                                                             probes.begin() + static_cast<std::ptrdiff_t>(last)));
    if (reports::probe_moved_between_host_states(probes[i] / usual)) other_state.insert(runs[i]);
  }
  return other_state;
}

std::optional<Figure> host_state_partner(Figure figure) {
  if (figure == Figure::kStepTime) return Figure::kStepTimePerProbe;
  if (figure == Figure::kStepTimePerProbe) return Figure::kStepTime;
  return std::nullopt;
}

std::set<std::int64_t> runs_in_other_host_state(Figure figure, const std::vector<SeriesEntry>& series,
                                                const std::vector<SeriesEntry>& partner) {
  return figure == Figure::kStepTime ? runs_in_other_host_state(series, partner)
                                     : runs_in_other_host_state(partner, series);
}

}  // namespace ampbench::history
