#include "explain/explain_slow_partner.h"

#include <algorithm>
#include <set>
#include <string>

#include "ampbench/reports/compare.h"
#include "ampbench/reports/stats.h"
#include "render/format.h"

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

// The cells of `cell`'s workload (same device, preset and ranks) timed in rounds, itself included.
std::vector<const CellResult*> same_workload(const Report& report, const CellResult& cell) {
  const auto key = key_of(cell);
  std::vector<const CellResult*> out;
  for (const auto& other : report.cells) {
    auto other_key = key_of(other);
    other_key.mode = key.mode;
    if (other_key == key && timed_in_rounds(other)) out.push_back(&other);
  }
  return out;
}

// The cells that took turns with `cell` in its workers, itself included.
std::vector<const CellResult*> round_partners(const Report& report, const CellResult& cell) {
  auto out = same_workload(report, cell);
  const auto& modes = cell.rounds->interleaved_modes;
  std::erase_if(
      out, [&](const CellResult* other) { return std::find(modes.begin(), modes.end(), other->mode) == modes.end(); });
  return out;
}

double rounds_per_worker(const Rounds& rounds) {
  const std::set<std::int64_t> workers(rounds.round_replicate.begin(), rounds.round_replicate.end());
  return static_cast<double>(rounds.step_time_s.size()) / static_cast<double>(std::max<std::size_t>(1, workers.size()));
}

}  // namespace

void timed_apart_findings(const Report& report, std::vector<Finding>& out) {
  for (const auto& cell : report.cells) {
    if (!timed_in_rounds(cell) || cell.rounds->interleaved_modes != std::vector<std::string>{cell.mode} ||
        !reruns_of(report, cell).empty()) {
      continue;
    }
    auto partners = same_workload(report, cell);
    std::erase(partners, &cell);
    if (partners.empty()) continue;
    const CellResult* fastest = nullptr;
    double fastest_s = 0.0;
    std::vector<std::string> others;
    for (const auto* partner : partners) {
      others.push_back(partner->mode);
      const double partner_s = median(partner->rounds->step_time_s);
      if (fastest == nullptr || partner_s < fastest_s) {
        fastest = partner;
        fastest_s = partner_s;
      }
    }
    const double step_s = median(cell.rounds->step_time_s);
    if (!(step_s > fastest_s)) continue;  // the fast mode left alone when its only partner went apart
    std::string sentence = "Timed in rounds of its own, apart from " + joined(others, ", ") + ": its step, " +
                           format_duration(step_s) + ", is " + format_ratio(step_s / fastest_s) + " " + fastest->mode +
                           "'s (" + format_duration(fastest_s) + "), and taking turns with it would have left " +
                           (others.size() == 1 ? others.front() : std::string("them")) + " under " +
                           format_count(kFewRoundsPerWorker) + " rounds per worker within the time cap.";
    if (cell.mode != kReferenceMode) {
      sentence += " Its speedup pairs no rounds with " + std::string(kReferenceMode) +
                  "'s: its interval is over the two cells' own estimates, wider than a paired one.";
    }
    out.push_back({"timed-apart",
                   key_of(cell).label(),
                   sentence,
                   {{"step_time_s", step_s},
                    {"fastest_partner_step_time_s", fastest_s},
                    {"rounds", static_cast<double>(cell.rounds->step_time_s.size())},
                    {"rounds_per_worker", rounds_per_worker(*cell.rounds)}}});
  }
}

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
    double slowest_block_s = 0.0;
    std::vector<std::string> others;
    for (const auto* partner : partners) {
      const double block_s = block_seconds(*partner);
      round_s += block_s;
      if (slowest == nullptr || block_s > slowest_block_s) {
        slowest = partner;
        slowest_block_s = block_s;
      }
    }
    if (slowest == nullptr || slowest == &cell || !(round_s > 0.0)) continue;
    const double share = slowest_block_s / round_s;
    if (share < kDominantPartnerShare) continue;
    const double slowest_step_s = median(slowest->rounds->step_time_s);
    if (slowest_step_s < kFarSlower * median(cell.rounds->step_time_s)) continue;
    for (const auto* partner : partners) {
      if (partner != slowest) others.push_back(partner->mode);
    }
    const auto rounds = static_cast<double>(cell.rounds->step_time_s.size());
    const auto& step = cell.rounds->step_time;
    const std::string sentence =
        "Measured over " + format_count(rounds) + " rounds (" + format_count(per_worker) +
        " per worker): its workers stopped at the time cap, and " + slowest->mode + "'s blocks (" +
        format_duration(slowest_step_s) + " a step) took " + format_share(share) +
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
                    {"partner_step_time_s", slowest_step_s},
                    {"relative_ci_half_width", step.relative_ci_half_width}}});
  }
}

}  // namespace ampbench::reports::detail
