#include "explain_slow_partner.h"

#include <algorithm>
#include <set>
#include <string>

#include "ampbench/reports/compare.h"
#include "ampbench/reports/stats.h"
#include "format.h"

namespace ampbench::reports::detail {
namespace {

// The seconds one round spends in a cell's blocks: its timed and untimed steps at its median round.
double block_seconds(const CellResult& cell) {
  const auto& rounds = *cell.rounds;
  return static_cast<double>(rounds.steps_per_round + rounds.untimed_steps_per_block) * median(rounds.step_time_s);
}

bool timed_in_rounds(const CellResult& cell) {
  return cell.status == CellStatus::kOk && cell.rounds && !cell.rounds->step_time_s.empty();
}

// The cells that took turns with `cell` in its workers, itself included.
std::vector<const CellResult*> round_partners(const Report& report, const CellResult& cell) {
  const auto& modes = cell.rounds->interleaved_modes;
  const auto key = key_of(cell);
  std::vector<const CellResult*> out;
  for (const auto& other : report.cells) {
    auto other_key = key_of(other);
    other_key.mode = key.mode;
    if (other_key != key || !timed_in_rounds(other)) continue;
    if (std::find(modes.begin(), modes.end(), other.mode) != modes.end()) out.push_back(&other);
  }
  return out;
}

double rounds_per_worker(const Rounds& rounds) {
  const std::set<std::int64_t> workers(rounds.round_replicate.begin(), rounds.round_replicate.end());
  return static_cast<double>(rounds.step_time_s.size()) / static_cast<double>(std::max<std::size_t>(1, workers.size()));
}

}  // namespace

void slow_partner_findings(const Report& report, std::vector<Finding>& out) {
  for (const auto& cell : report.cells) {
    if (!timed_in_rounds(cell)) continue;
    const auto time_capped = cell.throughput.stop_reasons.find(StopReason::kTimeCap);
    if (time_capped == cell.throughput.stop_reasons.end() || time_capped->second == 0) continue;
    const double per_worker = rounds_per_worker(*cell.rounds);
    if (per_worker >= kFewRoundsPerWorker) continue;
    const auto partners = round_partners(report, cell);
    double round_s = 0.0;
    const CellResult* slowest = nullptr;
    std::vector<std::string> others;
    for (const auto* partner : partners) {
      round_s += block_seconds(*partner);
      if (slowest == nullptr || block_seconds(*partner) > block_seconds(*slowest)) slowest = partner;
    }
    if (slowest == nullptr || slowest == &cell || !(round_s > 0.0)) continue;
    const double share = block_seconds(*slowest) / round_s;
    if (share < kDominantPartnerShare) continue;
    for (const auto* partner : partners) {
      if (partner != slowest) others.push_back(partner->mode);
    }
    const auto rounds = static_cast<double>(cell.rounds->step_time_s.size());
    const auto& step = cell.rounds->step_time;
    const std::string sentence =
        "Measured over " + format_count(rounds) + " rounds (" + format_count(per_worker) +
        " per worker): its workers stopped at the time cap, and " + slowest->mode + "'s blocks (" +
        format_duration(median(slowest->rounds->step_time_s)) + " a step) took " + format_share(share) +
        " of the modes' time in each round, so this cell's step time, " +
        format_duration_interval(step.value, step.ci_low, step.ci_high) +
        ", comes from those rounds alone. For a figure from more rounds, run its workload without " + slowest->mode +
        " (--modes " + joined(others, ",") + ") or with a longer --time-cap.";
    out.push_back({"slow-partner",
                   key_of(cell).label(),
                   sentence,
                   {{"rounds", rounds},
                    {"rounds_per_worker", per_worker},
                    {"partner_share_of_round", share},
                    {"partner_step_time_s", median(slowest->rounds->step_time_s)},
                    {"relative_ci_half_width", step.relative_ci_half_width}}});
  }
}

}  // namespace ampbench::reports::detail
