// The figures the history keeps of each cell of a run. Each is a value with the run's own 95%
// interval, which summarises its rounds over its worker processes (the spread a rerun would see):
// the change-point test and the history gate weigh each run by it.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ampbench/reports/report.h"

namespace ampbench::history {

// The two step-time figures are taken over the rounds of the machine's usual state, as the report's
// speedups are (reports/derived_figures.h): what moves between runs on a shared host is mostly how
// many rounds fell in its slower state.
enum class Figure {
  kStepTimePerProbe,  // each round's median step time over the same round's machine probe
  kStepTime,          // seconds, the rounds' geometric mean (the steps' median in reports without rounds)
  kSpeedup,           // FP32's step time over this mode's, paired in the same rounds
  kPeakTensorBytes,   // one value per run: deterministic for a workload and mode
  kDivergenceRatio,   // the numerics pass's final difference from FP32 over FP32's noise floor
  kEnergyPerStep,     // joules per timed step, over the rounds the step time keeps (where energy was measured)
};
inline constexpr std::array<Figure, 6> kFigures{Figure::kStepTimePerProbe, Figure::kStepTime,
                                                Figure::kSpeedup,          Figure::kPeakTensorBytes,
                                                Figure::kDivergenceRatio,  Figure::kEnergyPerStep};
// "step_time_per_probe", "step_time_s", "speedup", "peak_tensor_bytes", "divergence_ratio",
// "energy_per_step_j": the names in the database, the JSON output and --figure.
[[nodiscard]] std::string_view to_string(Figure figure);
[[nodiscard]] std::optional<Figure> figure_named(std::string_view name);

// How a figure's changes are measured: relative (step times, speedups, memory: the series is
// compared on logs, a change is a ratio) or absolute (the divergence ratio, which may be 0).
enum class ChangeScale { kRelative, kAbsolute };
[[nodiscard]] ChangeScale change_scale(Figure figure);
// A higher value is worse for step times, memory and divergence; better for a speedup.
[[nodiscard]] bool higher_is_worse(Figure figure);

struct FigureValue {
  double value = 0.0;
  double ci_low = 0.0;  // the run's own 95% interval; equal to value where it has none
  double ci_high = 0.0;
  // The independent draws the interval is over (worker processes, else rounds): how wide a t
  // interval it is. 0: a single value, or unknown.
  std::int64_t draws = 0;
};

struct CellFigures {
  std::string cell;  // reports::CellKey::label()
  reports::CellStatus status = reports::CellStatus::kOk;
  std::vector<std::pair<Figure, FigureValue>> figures;  // kFigures order; absent ones left out
};

// Puts the cell's figures in kFigures order, as run_figures lists them (figures read back from a
// database or an exported line come in another order).
void order_figures(CellFigures& cell);

// Every cell of the report, failed ones with no figures. A cell's figures are those its report
// holds: no probe, no per-probe time; FP32 has no speedup; no numerics pass, no divergence ratio.
[[nodiscard]] std::vector<CellFigures> run_figures(const reports::Report& report);

}  // namespace ampbench::history
