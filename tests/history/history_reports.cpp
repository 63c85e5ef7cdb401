#include "history_reports.h"

#include <cmath>

#include "ampbench/reports/derived_figures.h"
#include "ampbench/reports/roofline.h"
#include "sample_report.h"

namespace ampbench::testing {

reports::Report history_run(int run, double slowdown, const std::string& slow_workload, double machine,
                            double step_follows) {
  constexpr std::int64_t kReplicates = 5;
  constexpr std::int64_t kRoundsPerReplicate = 2;
  constexpr std::int64_t kRounds = kReplicates * kRoundsPerReplicate;
  auto report = make_sample_report();
  report.environment.timestamp_utc = "2026-11-26T00:" + std::to_string(10 + run % 50) + ":00Z";
  for (auto& cell : report.cells) {
    if (cell.status != reports::CellStatus::kOk) continue;
    const double factor = slow_workload.empty() || cell.workload == slow_workload ? slowdown : 1.0;
    const auto steps = static_cast<std::int64_t>(cell.step_times_s.size());
    reports::Rounds rounds;
    rounds.interleaved_modes = {cell.mode};
    rounds.steps_per_round = steps / kRounds;
    rounds.probe = "float32 MLP 32-128-128-1 training step";
    rounds.step_time_s.assign(static_cast<std::size_t>(kRounds), 0.0);  // each round's median, derived below
    for (std::int64_t round = 0; round < kRounds; ++round) {
      rounds.probe_s.push_back(machine * 1e-3 * (1.0 + 0.002 * static_cast<double>((run + round) % 3)));
      rounds.round_replicate.push_back(round / kRoundsPerReplicate);
    }
    for (std::int64_t step = 0; step < steps; ++step) {
      const auto round = step * kRounds / steps;
      rounds.step_round.push_back(round);
      const double scatter = 1.0 + 0.01 * static_cast<double>((run * 7 + round * 3) % 5 - 2) / 2.0;  // -1% .. +1%
      cell.step_times_s[static_cast<std::size_t>(step)] *= std::pow(machine, step_follows) * factor * scatter;
    }
    cell.rounds = rounds;
    reports::derive_step_figures(cell);
  }
  reports::relate_to_fp32(report);
  reports::fill_fractions_of_peak(report);
  return report;
}

}  // namespace ampbench::testing
