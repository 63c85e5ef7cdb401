// What the per-layer table, its HTML view and `explain` read from a cell's layer diagnostics
// (report.h LayerDiagnostics): per module, the worst of its observed steps, with the layers that
// matter first: any non-finite value, then an output float16 cannot hold, then the least gradient
// headroom, then the most gradient flushed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ampbench/reports/report.h"

namespace ampbench::reports::detail {

inline constexpr double kFp16Max = 65504.0;

// Where a figure peaked: the observed step and the loss scale it ran with.
struct AtStep {
  std::int64_t step = 0;
  double scale = 1.0;
};

struct LayerSummary {
  std::string module;
  std::string output_dtype;                // as this cell produced it; empty without an output
  std::string gradient_dtype;              // likewise for its gradient
  double output_amax = 0.0;                // the largest over the observed steps
  double output_above_fp16 = 0.0;          // the largest share of finite values above 65504
  std::optional<AtStep> first_above_fp16;  // the first observed step with any
  std::optional<double> gradient_amax;     // scaled, as the GradScaler sees it
  // log2(65504 / gradient_amax): powers of two the scaled gradient can still grow before float16
  // overflows; the least over the steps, and where.
  std::optional<double> headroom_log2;
  std::optional<AtStep> least_headroom;
  // The share of the gradient float16 flushed to zero, the largest over the steps: for a float16
  // gradient the zeros beyond the FP32 cell's at the same step (FP32 keeps what float16 loses;
  // unknown without an FP32 cell), for any other dtype the values float16 would flush.
  std::optional<double> gradient_flushed;
  std::optional<AtStep> most_flushed;
  double non_finite = 0.0;  // the largest share of inf/NaN in its output or gradient
};

// `reference` is the FP32 cell's diagnostics of the same workload (null when there is none).
[[nodiscard]] std::vector<LayerSummary> summarize_layers(const LayerDiagnostics& cell,
                                                         const LayerDiagnostics* reference);

// The cell's layer diagnostics and its FP32 cell's, when both exist.
[[nodiscard]] const LayerDiagnostics* layer_diagnostics(const CellResult& cell);
[[nodiscard]] const LayerDiagnostics* reference_layer_diagnostics(const Report& report, const CellResult& cell);

// On the steps that went bad, which module's tensor turned non-finite first, and how often: most
// frequent first; an empty module is "not in a module's output or gradient".
struct OriginCount {
  std::string module;
  std::string tensor;
  std::int64_t steps = 0;
};
[[nodiscard]] std::vector<OriginCount> origin_counts(const LayerDiagnostics& diagnostics);

// "2^16", "1", "2^-3.5": a loss scale as a power of two when it is one.
[[nodiscard]] std::string format_scale(double scale);

}  // namespace ampbench::reports::detail
