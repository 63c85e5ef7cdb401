// Which runs of a cell's history the host spent wholly in another state.
//
// A report's own rounds cannot see such a run: it judges each round's machine probe against the
// run's own usual (its 10th percentile), so a run whose every round met the host's slower state
// looks usual to itself. Across runs it shows: its probe (the raw step time over the per-probe
// one) took beyond reports::kSlowMachineFactor of the runs' median probe. Its steps then follow
// the probe by cell, in part or more than in full (docs/performance.md, "Performance history"), so
// neither step-time figure of it says anything about the code: the history gate judges against the
// runs without it, and the change-point search looks for changes in the runs without it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <vector>

#include "ampbench/history/history_store.h"

namespace ampbench::history {

// A run is judged against the median probe of the runs around it, up to this many either side (so
// 21 runs where the series has them): a run or a stretch of fewer than about ten runs in another
// state stands out, while a host that moved for good is the usual state again once enough runs of
// it have come, and its move is a change point in the raw step time (the machine's) instead of
// hiding every run after it from the search.
inline constexpr std::size_t kHostStateNeighbours = 10;

// The runs, among those present in both series (matched by run id), whose probe took beyond the
// factor of the median probe of the runs around them (kHostStateNeighbours either side, in run
// order), either way. Empty with fewer than two such runs.
[[nodiscard]] std::set<std::int64_t> runs_in_other_host_state(const std::vector<SeriesEntry>& step_time,
                                                              const std::vector<SeriesEntry>& per_probe);

// The other step-time figure, which a step-time series is judged with; nullopt for the figures the
// rule does not apply to.
[[nodiscard]] std::optional<Figure> host_state_partner(Figure figure);

// The same for a series of `figure` (a step-time one) and `partner`, the same runs of
// host_state_partner(figure), in either order of the two figures.
[[nodiscard]] std::set<std::int64_t> runs_in_other_host_state(Figure figure, const std::vector<SeriesEntry>& series,
                                                              const std::vector<SeriesEntry>& partner);

}  // namespace ampbench::history
