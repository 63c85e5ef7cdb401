// Change points in a series of runs: E-Divisive (Matteson & James, 2014) to place them, split and
// merged as Apache Otava (formerly Hunter; Fleming et al., ICPE 2023) does, with a Welch t test to
// decide whether each is real. Written here from the papers.
//
// Split: in a segment, the split point is the one maximising the energy statistic (alpha = 1)
//   Q(tau) = m n / (m + n) * (2/(m n) sum|x_i - y_j| - 1/C(m,2) sum|x_i - x_k| - 1/C(n,2) sum|y_j - y_k|)
// over the m points before tau (x) and the n from tau on (y), each side at least kMinSegment runs.
// It is a candidate when the two sides' means differ by a Welch t test with p < 0.05; the sides
// are then split in turn. Merge: while some candidate, tested
// against the segments between its neighbours, has p >= alpha or changes less than
// min_magnitude, the weakest such one is removed. What remains are the change points.
//
// A run's own interval enters the test: each side's variance is at least the mean of its runs'
// own variances (from their 95% intervals), so runs that are individually uncertain cannot make a
// change "significant" by happening to agree with each other.
//
// Values are compared on logs for relative figures (a change is a ratio) and as they are for
// absolute ones. Incremental use: find_change_points(series, from) only looks at the runs from
// `from` on (the segment after the last change point already found): adding a run never moves a
// change point found before it.
//
// A step time with the machine probe beside it (find_change_points_at_probe) is compared at equal
// probe: the probe's share is taken out at the slope the series' own runs show, as the gate does
// (probe_slope.h). The raw step time moves with the host's state, the step time per probe as far
// as the probe, while a cell's step follows the probe 0.5-1.0 of the way. Over four stored series
// of identical runs the raw series held 15 false change points and found 5 of 36 synthetic +8%
// steps at their run; at equal probe 4 and 24 (docs/performance.md, "The step time at its probe").
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "ampbench/history/run_figures.h"

namespace ampbench::history {

inline constexpr std::size_t kMinSegment = 4;

struct ChangePointOptions {
  double alpha = 0.001;         // Otava's default p threshold
  double min_magnitude = 0.05;  // relative (5%) or absolute, as the figure's scale
  ChangeScale scale = ChangeScale::kRelative;
};

// A run's value with its own interval (run_figures.h).
using SeriesPoint = FigureValue;

struct ChangePoint {
  std::size_t index = 0;   // the first point after the change
  double magnitude = 0.0;  // after / before - 1 of the geometric means (relative), or after - before
  double p_value = 1.0;
  double before = 0.0;  // the segments' means either side (geometric for relative figures)
  double after = 0.0;
};

// A run's own variance on the figure's scale (logs for relative figures), reading its 95% interval
// as a t interval over its draws (value +- t(0.975, draws - 1) sd; +- 1.96 sd when the draws are
// unknown). 0 where the interval is unbounded, inverted, or reaches 0 on a log scale: it then
// tells no variance.
[[nodiscard]] double own_variance(const SeriesPoint& point, ChangeScale scale);

// Throws std::invalid_argument for a relative series with a value that is not finite and positive,
// or an absolute one with a value that is not finite, or options out of range.
[[nodiscard]] std::vector<ChangePoint> find_change_points(const std::vector<SeriesPoint>& series,
                                                          const ChangePointOptions& options, std::size_t from = 0);

// A run of a step-time series: its step time and its step time per probe (the probe is their
// ratio), each with its own interval.
struct ProbedPoint {
  SeriesPoint step_time;
  SeriesPoint per_probe;
};

// The step time's change points at equal probe, on logs. Placing a split, the probe's share is
// taken out at the segment's slope; testing it, at the slope within its two sides pooled (so that a
// change that coincides with a move of the probe is not taken for the probe's), both held to
// [0, 1]: a step follows the probe at most all the way and never against it. A run's own variance
// is that of the same mix of its two figures, their worker spreads taken as moving together (the
// most it can be: their covariance is not stored). Throws as find_change_points.
[[nodiscard]] std::vector<ChangePoint> find_change_points_at_probe(const std::vector<ProbedPoint>& series,
                                                                   const ChangePointOptions& options);

// What the search can find: the least step from these runs on (a segment since the last change
// point) that it finds at its run +- 1 nine times in ten, searching as each of `runs_after` more
// runs comes (at least kMinSegment) that vary as these do: their sample sd, or their own if larger
// (as the test takes it), times the step in sds that the search itself finds nine times in ten on
// seeded normal series of that length (Welch's power formula promises 9 in 10 at the true split;
// the energy statistic's placement misses more, so the step is measured). Never under
// options.min_magnitude. Relative (0.094 is +9.4%) or absolute, as options.scale. Runs that
// drift or share episodes find less (docs/performance.md measures how it holds on real runs).
// nullopt for fewer than kMinSegment runs. Throws as find_change_points.
[[nodiscard]] std::optional<double> detectable_change(const std::vector<SeriesPoint>& segment,
                                                      const ChangePointOptions& options, std::size_t runs_after);
// The same for a step time searched at equal probe: its runs with the probe's share taken out at
// the slope they show, as find_change_points_at_probe places its splits.
[[nodiscard]] std::optional<double> detectable_change_at_probe(const std::vector<ProbedPoint>& segment,
                                                               const ChangePointOptions& options,
                                                               std::size_t runs_after);

// The test applied to one candidate: the points [begin, split) against [split, end).
[[nodiscard]] ChangePoint test_split(const std::vector<SeriesPoint>& series, std::size_t begin, std::size_t split,
                                     std::size_t end, ChangeScale scale);

}  // namespace ampbench::history
