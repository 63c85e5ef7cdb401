#include "render/layer_rows.h"

#include <algorithm>
#include <cmath>

#include "ampbench/reports/compare.h"
#include "ampbench/reports/counted.h"
#include "analysis/layer_summary.h"
#include "render/format.h"

namespace ampbench::reports::detail {
namespace {

std::string at_step(const std::optional<AtStep>& at) { return at ? " (step " + std::to_string(at->step) + ")" : ""; }

std::string observed_line(const LayerDiagnostics& diagnostics) {
  if (diagnostics.steps.empty()) return "no step observed";
  std::string line = std::to_string(diagnostics.steps.size()) + " steps observed (" +
                     std::to_string(diagnostics.steps.front()) + " to " + std::to_string(diagnostics.steps.back()) +
                     ", the step after each evaluation)";
  const double first = diagnostics.scales.front();
  const double last = diagnostics.scales.back();
  if (first != 1.0 || last != 1.0) {
    line += "; loss scale " + format_scale(first) + (first == last ? "" : " to " + format_scale(last));
  }
  return line;
}

std::string origins_line(const LayerDiagnostics& diagnostics) {
  if (diagnostics.bad_steps == 0) return "";
  std::string line = counted(static_cast<std::size_t>(diagnostics.bad_steps), "bad step", "bad steps") +
                     " (skipped by the GradScaler, or a non-finite loss without one); the first tensor to turn "
                     "non-finite:";
  std::vector<std::string> parts;
  for (const auto& count : origin_counts(diagnostics)) {
    parts.push_back((count.module.empty() ? "none of the modules' tensors (the loss or a parameter-free op)"
                                          : count.module + "'s " + count.tensor) +
                    " on " + std::to_string(count.steps) + " of the " +
                    std::to_string(diagnostics.non_finite_origins.size()) + " examined");
  }
  return line + " " + joined(parts, "; ");
}

std::string share_or_dash(double share) { return share > 0.0 ? format_share(share) : "-"; }

HeatCell heat_cell(const LayerRangeStep& step) {
  HeatCell cell;
  if (step.output) cell.detail += "output max " + format_general(step.output->amax, 3) + " " + step.output->dtype;
  if (step.gradient) {
    cell.detail += (cell.detail.empty() ? "" : "; ") + std::string("gradient max ") +
                   format_general(step.gradient->amax, 3) + " " + step.gradient->dtype + ", " +
                   format_share(step.gradient->zero) + " zero";
  }
  const double non_finite =
      std::max(step.output ? step.output->non_finite : 0.0, step.gradient ? step.gradient->non_finite : 0.0);
  if (non_finite > 0.0) return {"inf/NaN", "non-finite", cell.detail + "; " + format_share(non_finite) + " inf or NaN"};
  if (!step.gradient || !(step.gradient->amax > 0.0)) return {"-", "none", cell.detail};
  const double headroom = std::log2(kFp16Max / step.gradient->amax);
  cell.text = format_fixed(headroom, 1);
  cell.level = headroom < 0.0 ? "overflow" : headroom < 1.0 ? "low" : headroom < 4.0 ? "some" : "ample";
  return cell;
}

}  // namespace

std::vector<LayerTable> layer_tables(const Report& report, std::size_t row_limit) {
  std::vector<LayerTable> tables;
  for (const auto& cell : report.cells) {
    const auto* diagnostics = layer_diagnostics(cell);
    if (diagnostics == nullptr) continue;
    LayerTable table;
    table.cell = key_of(cell).label();
    table.lines.push_back(observed_line(*diagnostics));
    if (!diagnostics->note.empty()) table.lines.push_back(diagnostics->note);
    if (const auto line = origins_line(*diagnostics); !line.empty()) table.lines.push_back(line);
    table.table.header = {"layer",
                          "output max",
                          "output > 65504",
                          "gradient max (scaled)",
                          "headroom (powers of 2)",
                          "gradient flushed in float16",
                          "non-finite"};
    const auto layers = summarize_layers(*diagnostics, reference_layer_diagnostics(report, cell));
    table.steps = diagnostics->steps;
    for (const auto& layer : layers) {
      const auto& ranges = *std::find_if(diagnostics->layers.begin(), diagnostics->layers.end(),
                                         [&](const auto& l) { return l.module == layer.module; });
      HeatRow heat{layer.module, {}};
      for (const auto& step : ranges.steps) heat.steps.push_back(heat_cell(step));
      table.heat.push_back(std::move(heat));
    }
    for (const auto& layer : layers) {
      if (table.table.rows.size() == row_limit) {
        table.more_layers = layers.size() - row_limit;
        break;
      }
      table.table.add_row(
          {layer.module,
           layer.output_dtype.empty() ? "-" : format_general(layer.output_amax, 3) + " " + layer.output_dtype,
           share_or_dash(layer.output_above_fp16) + at_step(layer.first_above_fp16),
           layer.gradient_amax ? format_general(*layer.gradient_amax, 3) + " " + layer.gradient_dtype : "-",
           layer.headroom_log2 ? format_fixed(*layer.headroom_log2, 1) + at_step(layer.least_headroom) : "-",
           layer.gradient_flushed ? share_or_dash(*layer.gradient_flushed) +
                                        (*layer.gradient_flushed > 0.0 ? at_step(layer.most_flushed) : "")
                                  : "n/a",
           share_or_dash(layer.non_finite)});
    }
    tables.push_back(std::move(table));
  }
  return tables;
}

std::string layer_table_legend() {
  return "Per module, the worst of the observed steps of the numerics pass (never the timed steps). A module's "
         "output is what the ops applying its own parameters return (a Linear's, a Conv's, a norm's output); "
         "modules without parameters of their own have no row. Gradients are those reaching the output in "
         "backward, scaled by the loss scale as the GradScaler sees them. Headroom: log2(65504 / gradient max), "
         "how many doublings the scaled gradient has before float16 overflows (below 0: it did). Flushed: for a "
         "float16 gradient, the share of zeros beyond the FP32 cell's at the same step (what float16 lost); for "
         "float32 or bfloat16, the share float16 would round to zero at this scale. Rows: non-finite first, then "
         "outputs above float16's range, least headroom, most flushed.";
}

}  // namespace ampbench::reports::detail
