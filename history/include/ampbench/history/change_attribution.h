// Whether a change point in a cell's raw step time is the machine's rather than the code's.
//
// The machine probe (a fixed float32 MLP step that no commit changes) runs in the same rounds as
// the cell, so when the host itself gets faster or slower, the raw step time and the probe move
// together and their ratio, the step time per probe, stays where it was; a change in the code
// moves the ratio as well. A raw step-time change point is called the machine's only when, over
// the same runs (the segments either side of it, bounded by the series' neighbouring change
// points), the per-probe series shows no evidence of a change (Welch p >= kMachineChangeRatioP),
// moved less than kMachineChangeRatioShare of the raw change, and has no change point of its own
// within kMachineChangeTolerance runs: the search places a step within a run of where it is, so
// one step seen in two series can land two runs apart. Calling a code change the machine's would
// send a user away from a real regression, so every condition errs towards saying nothing.
//
// The converse is not claimed: a per-probe change can still be the machine's where the probe does
// not track what the cell is sensitive to, so no change point is ever called the code's.
// docs/performance.md ("Performance history") measures the rule on identical code while the host
// changed state, and on the same runs with a synthetic slowdown.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "ampbench/history/history_store.h"

namespace ampbench::history {

inline constexpr std::size_t kMachineChangeTolerance = 2;  // runs either side
inline constexpr double kMachineChangeRatioP = 0.05;
inline constexpr double kMachineChangeRatioShare = 0.5;

// For the raw step-time change point `which` of step_time_changes (oldest first): the step time per
// probe's test over the same runs (its magnitude and p; index: the change's position in step_time)
// when the change is the machine's; nullopt when it is not, or when the per-probe series does not
// cover at least two runs each side.
[[nodiscard]] std::optional<ChangePoint> machines_change(const std::vector<SeriesEntry>& step_time,
                                                         const std::vector<StoredChangePoint>& step_time_changes,
                                                         std::size_t which, const std::vector<SeriesEntry>& per_probe,
                                                         const std::vector<StoredChangePoint>& per_probe_changes);

}  // namespace ampbench::history
