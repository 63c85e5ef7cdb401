#include "ampbench/history/run_figures.h"

#include "ampbench/reports/compare.h"
#include "ampbench/reports/stats.h"

namespace ampbench::history {
namespace {

FigureValue point(double value) { return {value, value, value}; }

FigureValue from_estimate(const reports::RoundEstimate& estimate) {
  return {estimate.value, estimate.ci_low, estimate.ci_high};
}

std::optional<FigureValue> step_time_per_probe(const reports::CellResult& cell) {
  if (!cell.rounds || cell.rounds->probe_s.empty() || cell.rounds->step_time_s.empty()) return std::nullopt;
  const auto& rounds = *cell.rounds;
  return from_estimate(reports::summarize_rounds(reports::per_probe_step_times(rounds), rounds.round_replicate));
}

FigureValue step_time(const reports::CellResult& cell) {
  if (cell.rounds && cell.rounds->step_time.rounds > 0) return from_estimate(cell.rounds->step_time);
  const auto& summary = cell.throughput.step_time_s;
  return {summary.median, summary.ci_low, summary.ci_high};
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

std::vector<CellFigures> run_figures(const reports::Report& report) {
  std::vector<CellFigures> cells;
  for (const auto& cell : report.cells) {
    CellFigures figures{reports::key_of(cell).label(), cell.status, {}};
    if (cell.status == reports::CellStatus::kOk && !cell.step_times_s.empty()) {
      if (auto per_probe = step_time_per_probe(cell))
        figures.figures.emplace_back(Figure::kStepTimePerProbe, *per_probe);
      figures.figures.emplace_back(Figure::kStepTime, step_time(cell));
      if (cell.speedup_vs_fp32) {
        const auto& speedup = *cell.speedup_vs_fp32;
        figures.figures.emplace_back(Figure::kSpeedup, FigureValue{speedup.value, speedup.ci_low, speedup.ci_high});
      }
      if (cell.memory.peak_tensor_bytes > 0) {  // 0: not measured
        figures.figures.emplace_back(Figure::kPeakTensorBytes,
                                     point(static_cast<double>(cell.memory.peak_tensor_bytes)));
      }
      if (cell.divergence)
        figures.figures.emplace_back(Figure::kDivergenceRatio, point(cell.divergence->ratio_to_floor));
    }
    cells.push_back(std::move(figures));
  }
  return cells;
}

}  // namespace ampbench::history
