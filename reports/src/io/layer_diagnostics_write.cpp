// The numerics pass's per-module range statistics (report.h LayerDiagnostics) as JSON
// (layer_diagnostics_read.cpp reads them back).
#include "ampbench/reports/report_json.h"
#include "io/json_number.h"

namespace ampbench::reports {

using detail::json_number;
using detail::json_numbers;
using detail::json_optional;

void to_json(nlohmann::json& out, const TensorRange& value) {
  out = {{"dtype", value.dtype},
         {"elements", value.elements},
         {"amax", json_number(value.amax)},
         {"above_fp16_max", json_number(value.above_fp16_max)},
         {"fp16_subnormal", json_number(value.fp16_subnormal)},
         {"flushed_in_fp16", json_number(value.flushed_in_fp16)},
         {"zero", json_number(value.zero)},
         {"non_finite", json_number(value.non_finite)}};
}

void to_json(nlohmann::json& out, const LayerRangeStep& value) {
  out = {{"output", json_optional(value.output)}, {"gradient", json_optional(value.gradient)}};
}

void to_json(nlohmann::json& out, const LayerRanges& value) {
  out = {{"module", value.module}, {"steps", value.steps}};
}

void to_json(nlohmann::json& out, const NonFiniteOrigin& value) {
  out = {{"step", value.step}, {"module", value.module}, {"tensor", value.tensor}};
}

void to_json(nlohmann::json& out, const LayerDiagnostics& value) {
  out = {{"steps", value.steps},         {"scales", json_numbers(value.scales)},           {"layers", value.layers},
         {"bad_steps", value.bad_steps}, {"non_finite_origins", value.non_finite_origins}, {"note", value.note}};
}

}  // namespace ampbench::reports
