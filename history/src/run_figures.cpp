#include "ampbench/history/run_figures.h"

#include <algorithm>
#include <set>

#include "ampbench/reports/compare.h"
#include "ampbench/reports/derived_figures.h"
#include "ampbench/reports/stats.h"

namespace ampbench::history {
namespace {

FigureValue point(double value) { return {value, value, value}; }

// How many independent draws an estimate over these rounds is over: its worker processes when
// there were several (summarize_rounds reduces to one value each), else its rounds.
std::int64_t draws_of(const std::vector<std::int64_t>& replicate, std::size_t rounds) {
  const auto replicates = std::set<std::int64_t>(replicate.begin(), replicate.end()).size();
  return static_cast<std::int64_t>(replicates >= 2 ? replicates : rounds);
}

FigureValue from_estimate(const reports::RoundEstimate& estimate, std::int64_t draws) {
  return {estimate.value, estimate.ci_low, estimate.ci_high, draws};
}

void add_time_figures(const reports::Report& report, const reports::CellResult& cell, CellFigures& figures) {
  if (!cell.rounds || cell.rounds->step_time_s.empty()) {
    const auto& summary = cell.throughput.step_time_s;
    figures.figures.emplace_back(Figure::kStepTime,
                                 FigureValue{summary.median, summary.ci_low, summary.ci_high, summary.count});
    return;
  }
  // Over the rounds the report's speedup keeps: the machine's usual state (a round whose probe took
  // over slow_machine_factor times the usual probe time ran in the host's slower state). Over 30
  // identical runs on a shared 2-core host this took the between-run spread of the per-probe step
  // time from 1.1-7.6% to 0.9-3.9% (docs/performance.md, "Performance history").
  const auto kept = reports::kept_rounds(*cell.rounds, reports::rounds_left_out_of_usual_state(report, cell));
  const auto& replicate = kept.round_replicate;
  if (!kept.probe_s.empty()) {
    std::vector<double> per_probe;
    for (std::size_t round = 0; round < kept.step_time_s.size(); ++round) {
      per_probe.push_back(kept.step_time_s[round] / kept.probe_s[round]);
    }
    figures.figures.emplace_back(
        Figure::kStepTimePerProbe,
        from_estimate(reports::summarize_rounds(per_probe, replicate), draws_of(replicate, per_probe.size())));
  }
  figures.figures.emplace_back(Figure::kStepTime, from_estimate(reports::summarize_rounds(kept.step_time_s, replicate),
                                                                draws_of(replicate, kept.step_time_s.size())));
}

// Joules per step over the same rounds as the step time.
void add_energy_figure(const reports::Report& report, const reports::CellResult& cell, CellFigures& figures) {
  if (!cell.energy || !cell.rounds) return;
  const auto left_out = reports::rounds_left_out_of_usual_state(report, cell);
  const auto per_round = reports::joules_per_step_by_round(cell);
  std::vector<double> kept;
  for (std::size_t round = 0; round < per_round.size(); ++round) {
    if (round >= left_out.size() || !left_out[round]) kept.push_back(per_round[round]);
  }
  const auto replicate = reports::kept_rounds(*cell.rounds, left_out).round_replicate;
  figures.figures.emplace_back(Figure::kEnergyPerStep, from_estimate(reports::summarize_rounds(kept, replicate),
                                                                     draws_of(replicate, kept.size())));
}

}  // namespace

std::string_view to_string(Figure figure) {
  switch (figure) {
    case Figure::kStepTimePerProbe:
      return "step_time_per_probe";
    case Figure::kStepTime:
      return "step_time_s";
    case Figure::kSpeedup:
      return "speedup";
    case Figure::kPeakTensorBytes:
      return "peak_tensor_bytes";
    case Figure::kDivergenceRatio:
      return "divergence_ratio";
    case Figure::kEnergyPerStep:
      return "energy_per_step_j";
  }
  return "?";
}

std::optional<Figure> figure_named(std::string_view name) {
  for (const auto figure : kFigures) {
    if (to_string(figure) == name) return figure;
  }
  return std::nullopt;
}

ChangeScale change_scale(Figure figure) {
  return figure == Figure::kDivergenceRatio ? ChangeScale::kAbsolute : ChangeScale::kRelative;
}

bool higher_is_worse(Figure figure) { return figure != Figure::kSpeedup; }

void order_figures(CellFigures& cell) {
  std::sort(cell.figures.begin(), cell.figures.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
}

std::vector<CellFigures> run_figures(const reports::Report& report) {
  std::vector<CellFigures> cells;
  for (const auto& cell : report.cells) {
    CellFigures figures{reports::key_of(cell).label(), cell.status, {}};
    if (cell.status == reports::CellStatus::kOk && !cell.step_times_s.empty()) {
      add_time_figures(report, cell, figures);
      if (cell.speedup_vs_fp32) {
        const auto& speedup = *cell.speedup_vs_fp32;
        // Paired rounds, reduced per worker process as the step times are.
        const auto draws = cell.rounds ? draws_of(cell.rounds->round_replicate, cell.rounds->step_time_s.size()) : 0;
        figures.figures.emplace_back(Figure::kSpeedup,
                                     FigureValue{speedup.value, speedup.ci_low, speedup.ci_high, draws});
      }
      if (cell.memory.peak_tensor_bytes > 0) {  // 0: not measured
        figures.figures.emplace_back(Figure::kPeakTensorBytes,
                                     point(static_cast<double>(cell.memory.peak_tensor_bytes)));
      }
      if (cell.divergence)
        figures.figures.emplace_back(Figure::kDivergenceRatio, point(cell.divergence->ratio_to_floor));
      add_energy_figure(report, cell, figures);
    }
    cells.push_back(std::move(figures));
  }
  return cells;
}

}  // namespace ampbench::history
