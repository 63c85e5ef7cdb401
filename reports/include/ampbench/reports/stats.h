// The statistics behind every number ampbench reports: medians with distribution-free confidence
// intervals, ratios of medians with bootstrap intervals, the loss-divergence test and the
// Mann-Whitney U test that compare and check use. Pure functions of their samples, deterministic
// (a fixed seed for the bootstrap), so a report's figures can be recomputed from its raw samples.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ampbench/reports/report.h"

namespace ampbench::reports {

// The confidence level of every interval ampbench reports.
inline constexpr double kConfidence = 0.95;

// The median: the mean of the two middle values for an even count. Throws std::invalid_argument
// for no samples or a non-finite sample.
[[nodiscard]] double median(std::vector<double> samples);

// The q-quantile (0 <= q <= 1) by linear interpolation between order statistics, Hyndman & Fan
// type 7 (R's default, numpy's "linear"): h = (n - 1) q, x[floor h] + (h - floor h) (x[floor h + 1]
// - x[floor h]) on the sorted samples. Throws std::invalid_argument for no samples, a non-finite
// sample or q outside [0, 1].
[[nodiscard]] double quantile(std::vector<double> samples, double q);

// The 1-based ranks (l, u) of the order statistics that bound a distribution-free 95% confidence
// interval of the median of n samples: the largest l with P(B <= l - 1) <= 2.5% for B ~ Bin(n, 1/2),
// and u = n + 1 - l, so the coverage is 1 - 2 P(B <= l - 1) >= 95%. Exact binomial sums for
// n <= 1000; above that the normal approximation with continuity correction,
// l = floor(n/2 + 1/2 - 1.96 sqrt(n)/2), which differs from the exact rank by at most one there.
// For n < 6 no pair of order statistics reaches 95% (n = 5 gives 93.75% at best): the interval is
// then (1, n), the min and max, and covers less than 95%.
struct OrderStatisticRanks {
  std::int64_t lower = 1;
  std::int64_t upper = 1;
};
[[nodiscard]] OrderStatisticRanks median_ci_ranks(std::int64_t n);

// Median with its 95% CI from median_ci_ranks, p10 and p90 (type 7), mean, sample standard
// deviation (n - 1; 0 for one sample) and the relative CI half-width (ci_high - ci_low) / 2 /
// median (0 when the interval is a point, +inf when the median is 0 and the interval is not).
// Throws std::invalid_argument for no samples or a non-finite sample.
[[nodiscard]] SampleSummary summarize(const std::vector<double>& samples);

// median(numerator) / median(denominator) with a 95% percentile-bootstrap interval: each of
// kBootstrapResamples resamples draws both groups with replacement, independently, and the
// interval is the 2.5% and 97.5% quantiles (type 7) of the resampled ratios. The generator is
// ampbench's own (SplitMix64 with unbiased rejection), not <random>'s distributions, whose output
// differs between standard libraries: the same samples and seed give the same interval anywhere.
// A group of more than kBootstrapDirectResampleLimit samples draws its resampled medians from their
// exact distribution (order statistics of uniforms, Beta-distributed) instead of drawing n values:
// the same bootstrap at O(n log n) + O(1) per resample, so a million samples compare in a second.
// Throws std::invalid_argument for an empty group, a non-finite sample or a denominator median of 0.
inline constexpr int kBootstrapResamples = 2000;
inline constexpr std::size_t kBootstrapDirectResampleLimit = 2000;
[[nodiscard]] Ratio median_ratio(const std::vector<double>& numerator_samples,
                                 const std::vector<double>& denominator_samples, std::uint64_t seed = 0);

// How far an AMP cell's numerics pass lands from FP32's, on the scale of FP32's noise floor. Both
// passes train the same steps from the same weights on the same batches and are evaluated at the
// same steps on the same held-out batches. At each evaluation i after step 0:
//   d_i = |amp_i - fp32_i| / |fp32_i|      f_i = |floor_i - fp32_i| / |fp32_i|
// where floor is FP32's second run with a perturbation that should not matter. The final figures
// average the last quarter of those evaluations (at least one), where training has moved furthest:
//   final_relative_difference = mean d_i, final_floor = mean f_i,
//   ratio_to_floor = final_relative_difference / max(final_floor, kMinimumFloor)
// (a floor below 0.01% counts as 0.01%: closer than that, two losses are equal for this purpose).
//   verdict = "non-finite loss"        if an AMP eval loss is NaN/inf where FP32's is finite;
//             "diverged"               if ratio_to_floor > kFloorMultiple;
//             "above the floor"        if ratio_to_floor > 1;
//             "within the noise floor" otherwise.
// One floor run is one draw of how much an irrelevant change moves the outcome; "diverged" asks
// for kFloorMultiple times that, so a draw that happens to land low does not condemn a mode.
// Evaluations where FP32's or the floor's loss is not finite are left out of the means. Throws
// std::invalid_argument when the reference has no floor run or the two were evaluated at
// different steps.
inline constexpr double kFloorMultiple = 3.0;
inline constexpr double kMinimumFloor = 1e-4;
[[nodiscard]] Divergence compute_divergence(const Numerics& reference, const Numerics& amp);

// Estimates over rounds. Each round's value is one draw of "what this cell costs on this machine
// now"; slow drift moves whole rounds, so the spread between rounds, not between the steps inside
// one, says what a rerun would see. Values are positive times (or ratios of times), so they are
// combined on the log scale: the estimate is the geometric mean, and its 95% interval is the
// Student t interval of the mean log, exp(mean +- t(0.975, n - 1) sd / sqrt(n)). One round gives
// a point interval. Throws std::invalid_argument for no values or a value that is not finite and
// positive.
//
// Rounds from several worker processes (Rounds::round_replicate) are first reduced to one value
// per replicate, the geometric mean of its rounds, and the interval is then over replicates
// (t with replicates - 1 degrees of freedom): a process's own speed is shared by all its rounds,
// so only the spread between processes says what a rerun would see. `round_replicate` empty, or
// naming a single replicate: the rounds are the draws, as above.
[[nodiscard]] RoundEstimate summarize_rounds(const std::vector<double>& values,
                                             const std::vector<std::int64_t>& round_replicate = {});

// One value per replicate: the geometric mean of its rounds, in replicate order. The values
// unchanged when there are fewer than two replicates. Throws std::invalid_argument when
// round_replicate is neither empty nor one entry per value, or decreases.
[[nodiscard]] std::vector<double> replicate_means(const std::vector<double>& values,
                                                  const std::vector<std::int64_t>& round_replicate);

// The paired-rounds ratio reference[r] / values[r] summarised as above, as a Ratio: the speedup
// of a mode over the reference measured in the same rounds. Throws std::invalid_argument for
// different lengths or no rounds.
[[nodiscard]] Ratio paired_round_ratio(const std::vector<double>& reference, const std::vector<double>& values,
                                       const std::vector<std::int64_t>& round_replicate = {});

// Welch's two-sample t test on the logs of two sets of positive round values, each side reduced
// to replicate means first (replicate_means): whether their geometric means differ, and the 95%
// interval of the ratio geomean(current) / geomean(base). Needs at least two values on each side
// (else the interval is unbounded and p is 1).
struct RoundComparison {
  Ratio ratio;
  double p_value = 1.0;
  std::int64_t base_draws = 0;  // values compared per side: replicates, or rounds without them
  std::int64_t current_draws = 0;
};
[[nodiscard]] RoundComparison compare_rounds(const std::vector<double>& base, const std::vector<double>& current,
                                             const std::vector<std::int64_t>& base_replicate = {},
                                             const std::vector<std::int64_t>& current_replicate = {});

// The two-sided Mann-Whitney U test (Wilcoxon rank-sum), as Google Benchmark's compare.py runs it
// through scipy.stats.mannwhitneyu. u is U of the first sample: the number of pairs (x, y) with
// x > y, ties counting 1/2. Exact (the permutation distribution of U) when the smaller sample has
// at most kExactUTestMaxSize values and there are no ties, as scipy's method="auto" does;
// otherwise the normal approximation with tie correction and continuity correction. Throws std::invalid_argument for an
// empty sample or a non-finite value.
inline constexpr std::int64_t kExactUTestMaxSize = 8;
struct UTestResult {
  double u = 0.0;
  double p_value = 1.0;
  bool exact = false;
};
[[nodiscard]] UTestResult mann_whitney_u(const std::vector<double>& x, const std::vector<double>& y);

// Each round's step time over the same round's machine probe (Rounds::step_time_s / probe_s): the
// step time with the machine's drift divided out, which check and the history judge. Throws
// std::invalid_argument when the rounds have no probe time for every step time.
[[nodiscard]] std::vector<double> per_probe_step_times(const Rounds& rounds);

// P(|T| >= |t|) for Student's t with `degrees_of_freedom` (> 0): a t statistic's two-sided p value.
[[nodiscard]] double student_t_p_value(double t, double degrees_of_freedom);
// The t with P(|T| >= t) = two_sided_p (in (0, 1)), e.g. 2.776 for 0.05 and 4 degrees of freedom.
[[nodiscard]] double student_t_critical(double two_sided_p, double degrees_of_freedom);

// P(F >= ratio) for Snedecor's F: the one-sided p value of a variance estimate on
// `numerator_degrees` exceeding one on `denominator_degrees` by this ratio, e.g. 0.05 for 2.486
// on 4 and 80 degrees of freedom.
[[nodiscard]] double variance_ratio_p_value(double ratio, double numerator_degrees, double denominator_degrees);

}  // namespace ampbench::reports
