#include "analysis/layer_summary.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "ampbench/reports/derived_figures.h"
#include "render/format.h"

namespace ampbench::reports::detail {
namespace {

const LayerRanges* same_layer(const LayerDiagnostics* diagnostics, const std::string& module) {
  if (diagnostics == nullptr) return nullptr;
  for (const auto& layer : diagnostics->layers) {
    if (layer.module == module) return &layer;
  }
  return nullptr;
}

// The reference's gradient at the same step, when it observed that step too.
const TensorRange* reference_gradient(const LayerDiagnostics* reference, const LayerRanges* layer, std::int64_t step) {
  if (reference == nullptr || layer == nullptr) return nullptr;
  const auto at = std::find(reference->steps.begin(), reference->steps.end(), step);
  if (at == reference->steps.end()) return nullptr;
  const auto& gradient = layer->steps[static_cast<std::size_t>(at - reference->steps.begin())].gradient;
  return gradient ? &*gradient : nullptr;
}

std::optional<double> flushed_share(const TensorRange& gradient, const TensorRange* reference) {
  if (gradient.dtype != "float16") return gradient.flushed_in_fp16;
  if (reference == nullptr) return std::nullopt;
  return std::max(0.0, gradient.zero - reference->zero);
}

void add_step(LayerSummary& summary, const LayerRangeStep& step, AtStep at, const TensorRange* reference) {
  if (const auto& output = step.output) {
    if (summary.output_dtype.empty()) summary.output_dtype = output->dtype;
    summary.output_amax = std::max(summary.output_amax, output->amax);
    summary.output_above_fp16 = std::max(summary.output_above_fp16, output->above_fp16_max);
    if (output->above_fp16_max > 0.0 && !summary.first_above_fp16) summary.first_above_fp16 = at;
    summary.non_finite = std::max(summary.non_finite, output->non_finite);
  }
  if (const auto& gradient = step.gradient) {
    if (summary.gradient_dtype.empty()) summary.gradient_dtype = gradient->dtype;
    summary.non_finite = std::max(summary.non_finite, gradient->non_finite);
    if (gradient->amax > 0.0) {
      summary.gradient_amax = std::max(summary.gradient_amax.value_or(0.0), gradient->amax);
      const double headroom = std::log2(kFp16Max / gradient->amax);
      if (!summary.headroom_log2 || headroom < *summary.headroom_log2) {
        summary.headroom_log2 = headroom;
        summary.least_headroom = at;
      }
    }
    if (const auto flushed = flushed_share(*gradient, reference)) {
      if (!summary.gradient_flushed || *flushed > *summary.gradient_flushed) {
        summary.gradient_flushed = flushed;
        summary.most_flushed = at;
      }
    }
  }
}

// Sort key: non-finite, then overflowing outputs, then least headroom, then most flushed.
auto importance(const LayerSummary& layer) {
  return std::make_tuple(layer.non_finite > 0.0 ? -layer.non_finite : 0.0, -layer.output_above_fp16,
                         layer.headroom_log2.value_or(HUGE_VAL), -layer.gradient_flushed.value_or(0.0));
}

}  // namespace

std::vector<LayerSummary> summarize_layers(const LayerDiagnostics& cell, const LayerDiagnostics* reference) {
  std::vector<LayerSummary> layers;
  for (const auto& layer : cell.layers) {
    LayerSummary summary;
    summary.module = layer.module;
    const auto* reference_layer = same_layer(reference, layer.module);
    for (std::size_t i = 0; i < layer.steps.size() && i < cell.steps.size(); ++i) {
      const AtStep at{cell.steps[i], i < cell.scales.size() ? cell.scales[i] : 1.0};
      add_step(summary, layer.steps[i], at, reference_gradient(reference, reference_layer, at.step));
    }
    layers.push_back(std::move(summary));
  }
  std::stable_sort(layers.begin(), layers.end(),
                   [](const auto& a, const auto& b) { return importance(a) < importance(b); });
  return layers;
}

std::vector<OriginCount> origin_counts(const LayerDiagnostics& diagnostics) {
  std::vector<OriginCount> counts;
  for (const auto& origin : diagnostics.non_finite_origins) {
    auto found = std::find_if(counts.begin(), counts.end(), [&](const auto& count) {
      return count.module == origin.module && count.tensor == origin.tensor;
    });
    if (found == counts.end()) found = counts.insert(counts.end(), {origin.module, origin.tensor, 0});
    ++found->steps;
  }
  std::stable_sort(counts.begin(), counts.end(), [](const auto& a, const auto& b) { return a.steps > b.steps; });
  return counts;
}

const LayerDiagnostics* layer_diagnostics(const CellResult& cell) {
  if (cell.status != CellStatus::kOk || !cell.numerics || !cell.numerics->run.layers) return nullptr;
  return &*cell.numerics->run.layers;
}

const LayerDiagnostics* reference_layer_diagnostics(const Report& report, const CellResult& cell) {
  const auto* reference = reference_cell(report, cell);
  return reference == nullptr ? nullptr : layer_diagnostics(*reference);
}

std::string format_scale(double scale) {
  if (!(scale > 0.0) || !std::isfinite(scale)) return format_general(scale);
  const double exponent = std::log2(scale);
  if (exponent == std::round(exponent)) return exponent == 0.0 ? "1" : "2^" + format_fixed(exponent, 0);
  return format_general(scale);
}

}  // namespace ampbench::reports::detail
