#include "explain/explain_layers.h"

#include <algorithm>
#include <cmath>

#include "ampbench/reports/compare.h"
#include "ampbench/reports/counted.h"
#include "analysis/layer_summary.h"
#include "render/format.h"

namespace ampbench::reports::detail {
namespace {

bool computes_in_float16(const CellResult& cell) {
  return cell.settings.autocast && cell.settings.compute_dtype == "float16";
}

// Where a module's output exceeds float16's range in a dtype that can hold it: this cell's own
// summary when its output is not float16, else the FP32 cell's.
void overflow_findings(const CellResult& cell, const std::vector<LayerSummary>& own,
                       const std::vector<LayerSummary>& reference, std::vector<Finding>& out) {
  const auto& evidence = !own.empty() && own.front().output_dtype != "float16" ? own : reference;
  for (const auto& layer : evidence) {
    if (!layer.first_above_fp16 || layer.output_dtype == "float16") continue;
    const auto in_cell = std::find_if(own.begin(), own.end(), [&](const auto& l) { return l.module == layer.module; });
    const double non_finite = in_cell == own.end() ? 0.0 : in_cell->non_finite;
    out.push_back(
        {"layer-overflow",
         key_of(cell).label(),
         "Layer " + layer.module + "'s forward output reaches " + format_general(layer.output_amax, 3) + " in " +
             layer.output_dtype + " (above float16's 65504) from step " + std::to_string(layer.first_above_fp16->step) +
             ", " + format_share(layer.output_above_fp16) + " of its values at most: float16 overflows there" +
             (non_finite > 0.0
                  ? " (in this cell up to " + format_share(non_finite) + " of its output or gradient is inf or NaN)"
                  : "") +
             ", bfloat16 does not.",
         {{"output_amax", layer.output_amax},
          {"above_fp16_share", layer.output_above_fp16},
          {"first_step", static_cast<double>(layer.first_above_fp16->step)},
          {"non_finite_share_in_cell", non_finite}}});
  }
}

void flush_findings(const CellResult& cell, const std::vector<LayerSummary>& own, std::vector<Finding>& out) {
  const auto tightest = std::min_element(own.begin(), own.end(), [](const auto& a, const auto& b) {
    return a.headroom_log2.value_or(HUGE_VAL) < b.headroom_log2.value_or(HUGE_VAL);
  });
  for (const auto& layer : own) {
    if (!layer.gradient_flushed || *layer.gradient_flushed < kFlushedShareWorthSaying) continue;
    const auto& at = *layer.most_flushed;
    std::string why;
    if (!cell.settings.grad_scaler) {
      why = "; this mode has no GradScaler to lift them into float16's range";
    } else if (tightest != own.end() && tightest->module != layer.module && tightest->headroom_log2 &&
               *tightest->headroom_log2 < kNoHeadroom) {
      why = "; the scaler cannot raise the scale to keep them, because layer " + tightest->module +
            "'s scaled gradient already has " + format_fixed(*tightest->headroom_log2, 1) +
            " powers of two of headroom (step " + std::to_string(tightest->least_headroom->step) + ")";
    }
    out.push_back({"layer-flush",
                   key_of(cell).label(),
                   "Gradients of layer " + layer.module + ": " + format_share(*layer.gradient_flushed) +
                       " flushed to zero in float16 at scale " + format_scale(at.scale) + " (step " +
                       std::to_string(at.step) + "), so that part of its update is lost" + why + ".",
                   {{"flushed_share", *layer.gradient_flushed},
                    {"scale", at.scale},
                    {"step", static_cast<double>(at.step)},
                    {"least_headroom_log2", tightest != own.end() ? tightest->headroom_log2.value_or(0.0) : 0.0}}});
  }
}

void origin_findings(const CellResult& cell, const LayerDiagnostics& diagnostics, std::vector<Finding>& out) {
  if (diagnostics.bad_steps == 0 || diagnostics.non_finite_origins.empty()) return;
  const auto counts = origin_counts(diagnostics);
  const auto& first = counts.front();
  const auto examined = diagnostics.non_finite_origins.size();
  const std::string where = first.module.empty() ? "in none of the modules' outputs or gradients (the loss itself, "
                                                   "or an op without parameters)"
                                                 : "layer " + first.module + "'s " +
                                                       (first.tensor == "output" ? "forward output" : "gradient");
  const std::string share =
      static_cast<std::size_t>(first.steps) == examined
          ? "each time"
          : "in " + std::to_string(first.steps) + " of the " + std::to_string(examined) + " examined";
  // Every step skipped: the weights never moved, which is what the cell's verdict then measures
  // (its eval loss stays at the start while FP32's falls), not a finite loss that drifted.
  const std::int64_t steps = cell.numerics ? cell.numerics->steps : 0;
  const std::string skipped =
      diagnostics.bad_steps == steps
          ? "every one of the " + std::to_string(steps) + " steps of the numerics pass, so the model never trained"
          : counted(static_cast<std::size_t>(diagnostics.bad_steps), "step", "steps") + " of the numerics pass";
  const std::string sentence =
      cell.settings.grad_scaler
          ? "The GradScaler skipped " + skipped + ", backing the scale off each time; " + share +
                " the first tensor to turn non-finite was " + where + "."
          : "The loss turned non-finite at step " + std::to_string(diagnostics.non_finite_origins.front().step) +
                " of the numerics pass; the first tensor to turn non-finite was " + where + ".";
  out.push_back({"non-finite-origin",
                 key_of(cell).label(),
                 sentence,
                 {{"bad_steps", static_cast<double>(diagnostics.bad_steps)},
                  {"first_in_module_steps", static_cast<double>(first.steps)},
                  {"examined_steps", static_cast<double>(examined)}}});
}

}  // namespace

void layer_findings(const Report& report, const CellResult& cell, std::vector<Finding>& out) {
  const auto* diagnostics = layer_diagnostics(cell);
  if (diagnostics == nullptr || !computes_in_float16(cell)) return;
  const auto* reference = reference_layer_diagnostics(report, cell);
  const auto own = summarize_layers(*diagnostics, reference);
  const auto reference_layers =
      reference == nullptr ? std::vector<LayerSummary>{} : summarize_layers(*reference, nullptr);
  overflow_findings(cell, own, reference_layers, out);
  flush_findings(cell, own, out);
  origin_findings(cell, *diagnostics, out);
}

}  // namespace ampbench::reports::detail
