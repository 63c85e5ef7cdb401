#include "explain/explain_energy.h"

#include "ampbench/reports/compare.h"
#include "ampbench/reports/derived_figures.h"
#include "render/format.h"

namespace ampbench::reports::detail {
namespace {

std::string power_text(const Energy& energy) { return format_fixed(energy.average_power_w, 0) + " W"; }

}  // namespace

void energy_findings(const Report& report, const CellResult& cell, std::vector<Finding>& out) {
  const auto* reference = reference_cell(report, cell);
  if (!cell.energy || !cell.energy_ratio_vs_fp32 || reference == nullptr || !reference->energy) return;
  const auto& ratio = *cell.energy_ratio_vs_fp32;
  const auto& energy = *cell.energy;
  const auto& fp32 = *reference->energy;
  const std::string label = key_of(cell).label();
  std::vector<std::pair<std::string, double>> evidence{{"energy_ratio", ratio.value},
                                                       {"joules_per_step", energy.joules_per_step.value},
                                                       {"reference_joules_per_step", fp32.joules_per_step.value},
                                                       {"average_power_w", energy.average_power_w},
                                                       {"reference_average_power_w", fp32.average_power_w}};
  out.push_back({"energy", label,
                 cell.mode + ": " + format_ratio_ci(ratio) + " the energy of an " + reference->mode + " step (" +
                     format_energy(energy.joules_per_step.value) + " against " +
                     format_energy(fp32.joules_per_step.value) + " per step; " + power_text(energy) + " against " +
                     power_text(fp32) + " on average, " + energy.meter + ").",
                 evidence});
  if (!cell.speedup_vs_fp32) return;
  const auto& speedup = *cell.speedup_vs_fp32;
  const bool faster = speedup.ci_low > 1.0;
  const bool slower = speedup.ci_high < 1.0;
  const bool cheaper = ratio.ci_high < 1.0;
  const bool dearer = ratio.ci_low > 1.0;
  std::string sentence;
  if (faster && !cheaper) {
    sentence = "Faster (" + format_ratio_ci(speedup) + ") but no cheaper: its step costs " + format_ratio_ci(ratio) +
               " " + reference->mode + "'s energy, since the device draws more power while it runs (" +
               power_text(energy) + " against " + power_text(fp32) + ").";
  } else if (slower && !dearer) {
    sentence = "Slower (" + format_ratio_ci(speedup) + ") but no dearer: its step costs " + format_ratio_ci(ratio) +
               " " + reference->mode + "'s energy, since the device draws less power while it runs (" +
               power_text(energy) + " against " + power_text(fp32) + ").";
  } else {
    return;
  }
  evidence.emplace_back("speedup", speedup.value);
  out.push_back({"energy-time-disagree", label, sentence, std::move(evidence)});
}

}  // namespace ampbench::reports::detail
