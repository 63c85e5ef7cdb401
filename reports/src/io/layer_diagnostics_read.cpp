// The numerics run's per-module range statistics (report.h LayerDiagnostics) read back strictly.
#include <limits>
#include <string>

#include "ampbench/reports/json_reader.h"
#include "io/report_read.h"

namespace ampbench::reports::detail {
namespace {

using nlohmann::json;

constexpr std::int64_t kMaxElements = std::numeric_limits<std::int64_t>::max();

double read_share(ObjectReader& fields, std::string_view key) {
  const double share = read_finite_number(fields.required(key), fields.path_of(key));
  if (share < 0.0 || share > 1.0)
    fail_at(fields.path_of(key), "expected a share in [0, 1], got " + std::to_string(share));
  return share;
}

TensorRange read_tensor_range(const json& in, const std::string& path) {
  ObjectReader fields(in, path);
  TensorRange value;
  value.dtype = fields.text("dtype");
  value.elements = fields.integer_in("elements", 0, kMaxElements);
  value.amax = read_finite_number(fields.required("amax"), fields.path_of("amax"));
  if (value.amax < 0.0) fail_at(fields.path_of("amax"), "expected a magnitude of 0 or more");
  value.above_fp16_max = read_share(fields, "above_fp16_max");
  value.fp16_subnormal = read_share(fields, "fp16_subnormal");
  value.flushed_in_fp16 = read_share(fields, "flushed_in_fp16");
  value.zero = read_share(fields, "zero");
  value.non_finite = read_share(fields, "non_finite");
  fields.finish();
  return value;
}

LayerRangeStep read_layer_step(const json& in, const std::string& path) {
  ObjectReader fields(in, path);
  LayerRangeStep value;
  if (const auto* output = fields.optional("output"))
    value.output = read_tensor_range(*output, fields.path_of("output"));
  if (const auto* gradient = fields.optional("gradient"))
    value.gradient = read_tensor_range(*gradient, fields.path_of("gradient"));
  fields.finish();
  return value;
}

LayerRanges read_layer(const json& in, const std::string& path, std::size_t observed_steps) {
  ObjectReader fields(in, path);
  LayerRanges value;
  value.module = fields.text("module");
  if (value.module.empty()) fail_at(fields.path_of("module"), "expected a module path, got \"\"");
  value.steps = read_array<LayerRangeStep>(fields.required("steps"), fields.path_of("steps"), read_layer_step);
  if (value.steps.size() != observed_steps) {
    fail_at(fields.path_of("steps"),
            std::to_string(value.steps.size()) + " entries for " + std::to_string(observed_steps) + " observed steps");
  }
  fields.finish();
  return value;
}

NonFiniteOrigin read_origin(const json& in, const std::string& path, std::int64_t steps) {
  ObjectReader fields(in, path);
  NonFiniteOrigin value;
  value.step = fields.integer_in("step", 0, steps - 1);
  value.module = fields.text("module");
  value.tensor = fields.text("tensor");
  if (value.module.empty() ? !value.tensor.empty() : value.tensor != "output" && value.tensor != "gradient") {
    fail_at(fields.path_of("tensor"),
            "expected \"output\" or \"gradient\" (\"\" without a module), got \"" + value.tensor + "\"");
  }
  fields.finish();
  return value;
}

}  // namespace

LayerDiagnostics read_layer_diagnostics(const json& in, const std::string& path, std::int64_t steps) {
  ObjectReader fields(in, path);
  LayerDiagnostics value;
  const auto last_step = steps - 1;
  value.steps = read_array<std::int64_t>(
      fields.required("steps"), fields.path_of("steps"),
      [last_step](const json& step, const std::string& at) { return read_integer_in(step, at, 0, last_step); });
  value.scales = read_array<double>(fields.required("scales"), fields.path_of("scales"), read_finite_number);
  if (value.scales.size() != value.steps.size()) {
    fail_at(fields.path_of("scales"), std::to_string(value.scales.size()) + " scales for " +
                                          std::to_string(value.steps.size()) + " observed steps");
  }
  const auto observed = value.steps.size();
  value.layers = read_array<LayerRanges>(
      fields.required("layers"), fields.path_of("layers"),
      [observed](const json& layer, const std::string& at) { return read_layer(layer, at, observed); });
  value.bad_steps = fields.integer_in("bad_steps", 0, steps);
  value.non_finite_origins = read_array<NonFiniteOrigin>(
      fields.required("non_finite_origins"), fields.path_of("non_finite_origins"),
      [steps](const json& origin, const std::string& at) { return read_origin(origin, at, steps); },
      kMaxNonFiniteOrigins);
  value.note = fields.text("note");
  fields.finish();
  return value;
}

}  // namespace ampbench::reports::detail
