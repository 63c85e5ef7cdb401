#include "stats/slow_machine_rounds.h"

#include <algorithm>

#include "ampbench/reports/derived_figures.h"

namespace ampbench::reports::detail {
namespace {

// The lower tail rather than the median: in a run that spent most of its time in the slower state,
// the usual state is still the one its fastest rounds show.
constexpr double kUsualProbeQuantile = 0.10;

bool under_the_rule(const CellResult& cell) {
  return cell.status == CellStatus::kOk && cell.rounds && cell.rounds->slow_machine_factor &&
         !cell.rounds->probe_s.empty();
}

// The run's usual probe time over every cell under the rule that timed the same probe on the same
// device with the same ranks (a group's modes share their rounds' probes; each workload counts
// once per mode, which moves no quantile between workloads of the same modes).
double usual_probe_s(const Report& report, const CellResult& cell) {
  std::vector<double> probes;
  for (const auto& other : report.cells) {
    if (!under_the_rule(other) || other.device != cell.device || other.ranks != cell.ranks ||
        other.rounds->probe != cell.rounds->probe) {
      continue;
    }
    probes.insert(probes.end(), other.rounds->probe_s.begin(), other.rounds->probe_s.end());
  }
  const auto at = static_cast<std::size_t>(kUsualProbeQuantile * static_cast<double>(probes.size() - 1));
  std::nth_element(probes.begin(), probes.begin() + static_cast<std::ptrdiff_t>(at), probes.end());
  return probes[at];
}

}  // namespace

std::vector<bool> slow_machine_rounds(const Report& report, const CellResult& cell) {
  if (!under_the_rule(cell)) return {};
  const auto& rounds = *cell.rounds;
  const double limit = *rounds.slow_machine_factor * usual_probe_s(report, cell);
  std::vector<bool> slow;
  slow.reserve(rounds.probe_s.size());
  for (const double probe : rounds.probe_s) slow.push_back(probe > limit);
  return slow;
}

std::vector<bool> rounds_left_out(const std::vector<bool>& slow) {
  if (std::count(slow.begin(), slow.end(), false) < 2) return {};
  return slow;
}

}  // namespace ampbench::reports::detail

namespace ampbench::reports {

RoundSamples kept_rounds(const Rounds& rounds, const std::vector<bool>& left_out) {
  RoundSamples kept;
  for (std::size_t round = 0; round < rounds.step_time_s.size(); ++round) {
    if (round < left_out.size() && left_out[round]) continue;
    kept.step_time_s.push_back(rounds.step_time_s[round]);
    if (!rounds.probe_s.empty()) kept.probe_s.push_back(rounds.probe_s[round]);
    if (!rounds.round_replicate.empty()) kept.round_replicate.push_back(rounds.round_replicate[round]);
  }
  return kept;
}

}  // namespace ampbench::reports
