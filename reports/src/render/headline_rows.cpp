#include "render/headline_rows.h"

#include <algorithm>

#include "ampbench/reports/compare.h"
#include "render/format.h"

namespace ampbench::reports::detail {
namespace {

// The workload's name, with the rank count where cells of several ranks are charted apart.
std::string workload_label(const CellResult& cell) {
  return cell.ranks > 1 ? cell.workload + " ranks=" + std::to_string(cell.ranks) : cell.workload;
}

ModeHeadline mode_headline(const CellResult& cell) {
  ModeHeadline mode{cell.mode, cell.status != CellStatus::kOk, {}, {}, {}};
  if (mode.failed) return mode;
  mode.speedup = cell.speedup_vs_fp32;
  if (cell.memory_ratio_vs_fp32) mode.memory_ratio = cell.memory_ratio_vs_fp32->value;
  mode.divergence = cell.divergence;
  return mode;
}

// Failed cells last, cells without a speedup before them, the rest by speedup, fastest first.
bool faster_first(const ModeHeadline& a, const ModeHeadline& b) {
  const auto rank = [](const ModeHeadline& m) { return m.failed ? 2 : m.speedup ? 0 : 1; };
  if (rank(a) != rank(b)) return rank(a) < rank(b);
  return a.speedup && b.speedup && a.speedup->value > b.speedup->value;
}

std::string speedup_text(const std::optional<Ratio>& speedup) {
  if (!speedup) return "no speedup (no FP32 cell to pair with)";
  const auto figure = format_ratio_ci(*speedup);
  if (speedup->ci_low > 1.0) return figure + " faster";
  if (speedup->ci_high < 1.0) return figure + " slower";
  return figure + ", no clear difference";
}

std::string divergence_text(const Divergence& divergence) {
  if (divergence.verdict == DivergenceVerdict::kNonFiniteLoss) return "a non-finite loss";
  return "loss " + std::string(to_string(divergence.verdict));
}

std::string mode_text(const ModeHeadline& mode) {
  if (mode.failed) return mode.mode + " failed";
  std::string text = mode.mode + " " + speedup_text(mode.speedup);
  if (mode.memory_ratio) text += ", " + format_ratio(*mode.memory_ratio) + " the memory";
  if (mode.divergence) text += ", " + divergence_text(*mode.divergence);
  return text;
}

}  // namespace

std::vector<WorkloadHeadline> workload_headlines(const Report& report) {
  std::vector<WorkloadHeadline> headlines;
  for (const auto& cell : report.cells) {
    if (cell.mode == reference_mode_for(cell.mode)) continue;
    const auto label = workload_label(cell);
    auto at = std::find_if(headlines.begin(), headlines.end(),
                           [&](const WorkloadHeadline& headline) { return headline.workload == label; });
    if (at == headlines.end()) at = headlines.insert(headlines.end(), WorkloadHeadline{label, {}});
    at->modes.push_back(mode_headline(cell));
  }
  for (auto& headline : headlines) std::stable_sort(headline.modes.begin(), headline.modes.end(), faster_first);
  return headlines;
}

std::string headline_text(const WorkloadHeadline& headline) {
  std::vector<std::string> modes;
  for (const auto& mode : headline.modes) modes.push_back(mode_text(mode));
  return joined(modes, "; ");
}

std::vector<GlanceRow> glance_rows(const Report& report) {
  std::vector<GlanceRow> rows;
  for (const auto& cell : report.cells) {
    if (cell.status != CellStatus::kOk) continue;
    GlanceRow row{workload_label(cell), cell.mode, {}, {}};
    if (cell.mode == reference_mode_for(cell.mode)) {
      row.relative_time = Ratio{1.0, 1.0, 1.0};
      row.relative_memory = 1.0;
    } else {
      // A step time relative to FP32's is the speedup's reciprocal, its interval's ends swapped.
      if (const auto& s = cell.speedup_vs_fp32; s && s->value > 0.0 && s->ci_low > 0.0)
        row.relative_time = Ratio{1.0 / s->value, 1.0 / s->ci_high, 1.0 / s->ci_low};
      if (cell.memory_ratio_vs_fp32) row.relative_memory = cell.memory_ratio_vs_fp32->value;
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace ampbench::reports::detail
