// `history show`'s document built from the store (reports/history_show.h renders it): per testbed
// shown, every series of the cells and figures asked for, with the runs the host spent in another
// state marked, each change point's commit range and, for a raw step-time change the probe moved
// with, the machine's part in it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ampbench/history/history_store.h"
#include "ampbench/reports/history_show.h"

namespace ampbench::history {

// show's statement of what each series' search can find: the step found 9 times in 10 once this
// many runs have come after it (as many as the history benchmark's further runs).
inline constexpr std::size_t kDetectableWithinRuns = 10;

// How the pages show a figure's values: step times in seconds, peak memory in bytes, else plain.
[[nodiscard]] reports::SeriesUnit unit_of(Figure figure);

// The series of `testbeds`, for `cell` only where it is not empty, of `figures` in their order.
[[nodiscard]] reports::HistoryShow show_history(const HistoryStore& store, const std::vector<TestbedRow>& testbeds,
                                                const std::string& cell, const std::vector<Figure>& figures);

// The machine's part in a change point `add` has just found, as `show` would give it (nullopt: none).
[[nodiscard]] std::optional<reports::MachineAttribution> attribution_of(const HistoryStore& store,
                                                                        const std::string& testbed_name,
                                                                        const NewChangePoint& change);

}  // namespace ampbench::history
