#include "ampbench/history/change_points.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

#include "ampbench/history/probe_slope.h"
#include "ampbench/reports/stats.h"

namespace ampbench::history {
namespace {

struct Transformed {
  std::vector<double> x;         // log(value) for relative figures, the value for absolute ones
  std::vector<double> variance;  // each run's own variance on that scale, from its interval
};

Transformed transform(const std::vector<SeriesPoint>& series, ChangeScale scale) {
  const bool relative = scale == ChangeScale::kRelative;
  Transformed out;
  for (std::size_t i = 0; i < series.size(); ++i) {
    const auto& point = series[i];
    if (!std::isfinite(point.value) || (relative && point.value <= 0)) {
      throw std::invalid_argument("change points: point " + std::to_string(i) + " is not a finite" +
                                  (relative ? " positive" : "") + " value");
    }
    out.x.push_back(relative ? std::log(point.value) : point.value);
    out.variance.push_back(own_variance(point, scale));
  }
  return out;
}

struct SegmentMoments {
  double mean = 0.0;
  double variance = 0.0;  // the sample variance, or the runs' own mean variance if larger
  double count = 0.0;
};

SegmentMoments moments(const Transformed& data, std::size_t begin, std::size_t end) {
  SegmentMoments m;
  m.count = static_cast<double>(end - begin);
  double own = 0.0;
  for (std::size_t i = begin; i < end; ++i) {
    m.mean += data.x[i];
    own += data.variance[i];
  }
  m.mean /= m.count;
  double squares = 0.0;
  for (std::size_t i = begin; i < end; ++i) squares += (data.x[i] - m.mean) * (data.x[i] - m.mean);
  const double sample = m.count > 1 ? squares / (m.count - 1.0) : 0.0;
  m.variance = std::max(sample, own / m.count);
  return m;
}

ChangePoint welch(const Transformed& data, std::size_t begin, std::size_t split, std::size_t end, ChangeScale scale) {
  const auto left = moments(data, begin, split);
  const auto right = moments(data, split, end);
  ChangePoint change;
  change.index = split;
  const bool relative = scale == ChangeScale::kRelative;
  change.before = relative ? std::exp(left.mean) : left.mean;
  change.after = relative ? std::exp(right.mean) : right.mean;
  change.magnitude = relative ? change.after / change.before - 1.0 : change.after - change.before;
  const double left_term = left.variance / left.count;
  const double right_term = right.variance / right.count;
  const double standard_error = std::sqrt(left_term + right_term);
  const double difference = right.mean - left.mean;
  if (standard_error == 0.0) {
    change.p_value = difference == 0.0 ? 1.0 : 0.0;
    return change;
  }
  // Welch-Satterthwaite degrees of freedom; a side of one point contributes its own variance only.
  const double denominator = (left.count > 1 ? left_term * left_term / (left.count - 1.0) : 0.0) +
                             (right.count > 1 ? right_term * right_term / (right.count - 1.0) : 0.0);
  const double degrees = denominator > 0 ? std::pow(left_term + right_term, 2) / denominator : 1.0;
  change.p_value = reports::student_t_p_value(difference / standard_error, degrees);
  return change;
}

// The split of [begin, end) that maximises the energy statistic, each side at least kMinSegment
// points; end - begin >= 2 kMinSegment. O(n^2): the within-side sums grow one point at a time.
std::size_t energy_split(const std::vector<double>& x, std::size_t begin, std::size_t end) {
  const std::size_t n = end - begin;
  // within[k]: the sum of |x_i - x_j| over i < j < begin + k (the first k points).
  std::vector<double> within_left(n + 1, 0.0);
  for (std::size_t k = 1; k < n; ++k) {
    double added = 0.0;
    for (std::size_t i = 0; i < k; ++i) added += std::abs(x[begin + k] - x[begin + i]);
    within_left[k + 1] = within_left[k] + added;
  }
  // within_right[k]: the same over the points from begin + k to the end.
  std::vector<double> within_right(n + 1, 0.0);
  for (std::size_t k = n - 1; k-- > 0;) {
    double added = 0.0;
    for (std::size_t j = k + 1; j < n; ++j) added += std::abs(x[begin + k] - x[begin + j]);
    within_right[k] = within_right[k + 1] + added;
  }
  const double total = within_left[n];
  std::size_t best = begin + kMinSegment;
  double best_q = -1.0;
  for (std::size_t m = kMinSegment; m + kMinSegment <= n; ++m) {
    const double r = static_cast<double>(n - m);
    const double l = static_cast<double>(m);
    const double between = total - within_left[m] - within_right[m];
    const double energy =
        2.0 * between / (l * r) - within_left[m] / (l * (l - 1) / 2.0) - within_right[m] / (r * (r - 1) / 2.0);
    const double q = l * r / (l + r) * energy;
    if (q > best_q) {
      best_q = q;
      best = begin + m;
    }
  }
  return best;
}

bool accepted(const ChangePoint& change, const ChangePointOptions& options) {
  return change.p_value < options.alpha && std::abs(change.magnitude) >= options.min_magnitude;
}

// Splitting is lenient (p < 0.05, no minimum magnitude): a segment holding a rise and a fall back
// (a bump) splits first at one of them against a mix of both levels, which the strict test would
// stop at. The merge step then holds every candidate to both against its neighbouring segments.
constexpr double kSplitAlpha = 0.05;

// Split and merge over [from, end). place(begin, end): the split of a segment; test(begin, split,
// end): the candidate's change.
template <typename Place, typename Test>
std::vector<ChangePoint> split_and_merge(std::size_t from, std::size_t end, const ChangePointOptions& options,
                                         const Place& place, const Test& test) {
  auto lenient = options;
  lenient.alpha = std::max(options.alpha, kSplitAlpha);
  lenient.min_magnitude = 0.0;
  std::vector<std::size_t> found;
  const auto split = [&](const auto& self, std::size_t begin, std::size_t stop) -> void {
    if (stop - begin < 2 * kMinSegment) return;
    const std::size_t at = place(begin, stop);
    if (!accepted(test(begin, at, stop), lenient)) return;
    self(self, begin, at);
    found.push_back(at);
    self(self, at, stop);
  };
  split(split, from, end);
  const auto neighbours_test = [&](std::size_t k) {
    return test(k == 0 ? from : found[k - 1], found[k], k + 1 == found.size() ? end : found[k + 1]);
  };
  // Merge: a change point must hold against the segments between its neighbours; drop the
  // weakest that does not, and test the rest again.
  while (true) {
    std::size_t weakest = found.size();
    double weakest_p = -1.0;
    for (std::size_t k = 0; k < found.size(); ++k) {
      const auto change = neighbours_test(k);
      if (!accepted(change, options) && change.p_value > weakest_p) {
        weakest = k;
        weakest_p = change.p_value;
      }
    }
    if (weakest == found.size()) break;
    found.erase(found.begin() + static_cast<std::ptrdiff_t>(weakest));
  }
  std::vector<ChangePoint> changes;
  for (std::size_t k = 0; k < found.size(); ++k) changes.push_back(neighbours_test(k));
  return changes;
}

void check_options(const ChangePointOptions& options) {
  if (!(options.alpha > 0 && options.alpha < 1) || !(options.min_magnitude >= 0) ||
      !std::isfinite(options.min_magnitude)) {
    throw std::invalid_argument("change points: alpha must be in (0, 1) and min_magnitude finite and >= 0");
  }
}

void check_options_at_probe(const ChangePointOptions& options) {
  check_options(options);
  if (options.scale != ChangeScale::kRelative) {
    throw std::invalid_argument("change points at the probe: a step time is a relative figure");
  }
}

// A probed series on logs: each run's step time and probe, and the own sds of its two figures.
struct ProbedLogs {
  std::vector<ProbeAndStep> runs;
  std::vector<double> step_sd;       // the step time's own sd
  std::vector<double> per_probe_sd;  // the per-probe figure's
};

ProbedLogs probed_logs(const std::vector<ProbedPoint>& series) {
  std::vector<SeriesPoint> step_times;
  std::vector<SeriesPoint> per_probe;
  for (const auto& point : series) {
    step_times.push_back(point.step_time);
    per_probe.push_back(point.per_probe);
  }
  const auto steps = transform(step_times, ChangeScale::kRelative);
  const auto ratios = transform(per_probe, ChangeScale::kRelative);
  ProbedLogs logs;
  for (std::size_t i = 0; i < series.size(); ++i) {
    logs.runs.push_back({steps.x[i] - ratios.x[i], steps.x[i]});
    logs.step_sd.push_back(std::sqrt(steps.variance[i]));
    logs.per_probe_sd.push_back(std::sqrt(ratios.variance[i]));
  }
  return logs;
}

// How far a step follows the probe over these runs, held to [0, 1]; 0 where the probe never moved.
double follows(const std::vector<ProbeAndStep>& runs) {
  const auto fit = fit_probe_slope(runs);
  return fit ? std::clamp(fit->slope, 0.0, 1.0) : 0.0;
}

// The runs' step times with the probe's share taken out at `slope` (at the runs' mean probe), each
// with the own variance of that mix of its two figures.
Transformed at_probe(const ProbedLogs& logs, std::size_t begin, std::size_t end, double slope) {
  double mean_log_probe = 0.0;
  for (std::size_t i = begin; i < end; ++i) mean_log_probe += logs.runs[i].log_probe;
  mean_log_probe /= static_cast<double>(end - begin);
  Transformed out;
  for (std::size_t i = begin; i < end; ++i) {
    out.x.push_back(logs.runs[i].log_step - slope * (logs.runs[i].log_probe - mean_log_probe));
    out.variance.push_back(std::pow((1.0 - slope) * logs.step_sd[i] + slope * logs.per_probe_sd[i], 2));
  }
  return out;
}

// The slope within the two sides of a split, pooled: each side's runs about their own means.
double follows_within(const ProbedLogs& logs, std::size_t begin, std::size_t split, std::size_t end) {
  std::vector<ProbeAndStep> centred;
  for (const auto& [first, last] : {std::pair{begin, split}, std::pair{split, end}}) {
    ProbeAndStep mean;
    for (std::size_t i = first; i < last; ++i) {
      mean.log_probe += logs.runs[i].log_probe / static_cast<double>(last - first);
      mean.log_step += logs.runs[i].log_step / static_cast<double>(last - first);
    }
    for (std::size_t i = first; i < last; ++i) {
      centred.push_back({logs.runs[i].log_probe - mean.log_probe, logs.runs[i].log_step - mean.log_step});
    }
  }
  return follows(centred);
}

// The split of [begin, end) at equal probe. The slope over the whole segment takes a change that
// coincides with a move of the probe partly for the probe's, so the split it places is placed again
// at the slope within its sides, until it stays put (a few rounds at most).
std::size_t place_at_probe(const ProbedLogs& logs, std::size_t begin, std::size_t end) {
  constexpr int kMaxRounds = 4;
  const std::vector<ProbeAndStep> segment(logs.runs.begin() + static_cast<std::ptrdiff_t>(begin),
                                          logs.runs.begin() + static_cast<std::ptrdiff_t>(end));
  std::size_t at = begin + energy_split(at_probe(logs, begin, end, follows(segment)).x, 0, end - begin);
  for (int round = 0; round < kMaxRounds; ++round) {
    const double slope = follows_within(logs, begin, at, end);
    const std::size_t again = begin + energy_split(at_probe(logs, begin, end, slope).x, 0, end - begin);
    if (again == at) break;
    at = again;
  }
  return at;
}

// The step, in sds of the runs' spread, that the search finds at its run +- 1 in 9 of 10 series of
// independent normal runs: `before` runs, the step, then runs added one at a time until `after`
// have come, the search run over them after each as `history add` runs it (a change found first
// elsewhere is a miss). Welch's formula, (t(1 - alpha/2) + t(0.9)) standard errors, promises 9
// in 10 at the true split; the energy statistic places the split a run or two off in about one
// series of six at that step, so the step is measured here: by bisection over a fixed set of
// seeded series (the same on every machine), cached per geometry. A before-side beyond
// kSimulatedBefore runs is simulated at that many (its mean is then nearly exact; the step stated
// is a little larger than it is).
double step_found_nine_in_ten(std::size_t before, std::size_t after, double alpha) {
  constexpr std::size_t kSimulatedBefore = 40;
  constexpr int kSeries = 200;
  constexpr double kFound = 0.9;
  before = std::min(before, kSimulatedBefore);
  after = std::max(after, kMinSegment);
  thread_local std::map<std::tuple<std::size_t, std::size_t, double>, double> cache;
  const auto key = std::tuple{before, after, alpha};
  if (const auto cached = cache.find(key); cached != cache.end()) return cached->second;

  std::mt19937_64 engine(33);
  std::normal_distribution<double> normal;
  std::vector<std::vector<double>> noise(kSeries, std::vector<double>(before + after));
  for (auto& series : noise) {
    for (auto& value : series) value = normal(engine);
  }
  ChangePointOptions options;
  options.alpha = alpha;
  options.min_magnitude = 0.0;
  options.scale = ChangeScale::kAbsolute;
  const auto found_share = [&](double step) {
    int found = 0;
    for (const auto& series : noise) {
      Transformed data{series, std::vector<double>(series.size(), 0.0)};
      for (std::size_t i = before; i < data.x.size(); ++i) data.x[i] += step;
      for (std::size_t end = before + kMinSegment; end <= data.x.size(); ++end) {
        const auto changes = split_and_merge(
            0, end, options, [&](std::size_t first, std::size_t last) { return energy_split(data.x, first, last); },
            [&](std::size_t first, std::size_t split, std::size_t last) {
              return welch(data, first, split, last, options.scale);
            });
        if (changes.empty()) continue;
        found += std::any_of(changes.begin(), changes.end(), [&](const ChangePoint& change) {
          return change.index + 1 >= before && change.index <= before + 1;
        });
        break;
      }
    }
    return static_cast<double>(found) / kSeries;
  };
  double low = 0.0;
  double high = 16.0;
  for (int halving = 0; halving < 12; ++halving) {
    const double middle = (low + high) / 2.0;
    (found_share(middle) >= kFound ? high : low) = middle;
  }
  return cache[key] = high;
}

// detectable_change on transformed runs: step_found_nine_in_ten sds of the segment's spread (its
// sample sd, or its runs' own if larger, as the search's test takes it).
std::optional<double> detectable(const Transformed& data, const ChangePointOptions& options, std::size_t runs_after) {
  const std::size_t n = data.x.size();
  if (n < kMinSegment) return std::nullopt;
  const double step = step_found_nine_in_ten(n, runs_after, options.alpha) * std::sqrt(moments(data, 0, n).variance);
  const double change = options.scale == ChangeScale::kRelative ? std::expm1(step) : step;
  return std::max(change, options.min_magnitude);
}

}  // namespace

double own_variance(const SeriesPoint& point, ChangeScale scale) {
  constexpr double kZ95 = 1.959963984540054;
  // The critical value is found by bisection on the t distribution: cached per draw count, since a
  // store's runs mostly share one (the replicates), and an add tests every point of every series.
  thread_local std::map<std::int64_t, double> critical_values;
  double critical = kZ95;
  if (point.draws >= 2) {
    auto [found, inserted] = critical_values.try_emplace(point.draws, 0.0);
    if (inserted) found->second = reports::student_t_critical(0.05, static_cast<double>(point.draws - 1));
    critical = found->second;
  }
  const bool relative = scale == ChangeScale::kRelative;
  const bool usable = std::isfinite(point.ci_low) && std::isfinite(point.ci_high) && point.ci_low <= point.ci_high &&
                      (!relative || point.ci_low > 0);
  if (!usable) return 0.0;
  const double width = relative ? std::log(point.ci_high) - std::log(point.ci_low) : point.ci_high - point.ci_low;
  const double sd = width / 2.0 / critical;
  return sd * sd;
}

ChangePoint test_split(const std::vector<SeriesPoint>& series, std::size_t begin, std::size_t split_at, std::size_t end,
                       ChangeScale scale) {
  if (!(begin < split_at && split_at < end && end <= series.size())) {
    throw std::invalid_argument("test_split: needs begin < split < end <= the series' length");
  }
  return welch(transform(series, scale), begin, split_at, end, scale);
}

std::vector<ChangePoint> find_change_points(const std::vector<SeriesPoint>& series, const ChangePointOptions& options,
                                            std::size_t from) {
  check_options(options);
  if (from >= series.size()) return {};
  const auto data = transform(series, options.scale);
  return split_and_merge(
      from, series.size(), options,
      [&](std::size_t begin, std::size_t end) { return energy_split(data.x, begin, end); },
      [&](std::size_t begin, std::size_t split, std::size_t end) {
        return welch(data, begin, split, end, options.scale);
      });
}

std::vector<ChangePoint> find_change_points_at_probe(const std::vector<ProbedPoint>& series,
                                                     const ChangePointOptions& options) {
  check_options_at_probe(options);
  const auto logs = probed_logs(series);
  return split_and_merge(
      0, series.size(), options, [&](std::size_t begin, std::size_t end) { return place_at_probe(logs, begin, end); },
      [&](std::size_t begin, std::size_t split, std::size_t end) {
        const auto data = at_probe(logs, begin, end, follows_within(logs, begin, split, end));
        auto change = welch(data, 0, split - begin, end - begin, options.scale);
        change.index = split;
        return change;
      });
}

std::optional<double> detectable_change(const std::vector<SeriesPoint>& segment, const ChangePointOptions& options,
                                        std::size_t runs_after) {
  check_options(options);
  return detectable(transform(segment, options.scale), options, runs_after);
}

std::optional<double> detectable_change_at_probe(const std::vector<ProbedPoint>& segment,
                                                 const ChangePointOptions& options, std::size_t runs_after) {
  check_options_at_probe(options);
  if (segment.size() < kMinSegment) return std::nullopt;
  const auto logs = probed_logs(segment);
  return detectable(at_probe(logs, 0, segment.size(), follows(logs.runs)), options, runs_after);
}

}  // namespace ampbench::history
