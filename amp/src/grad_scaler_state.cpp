// GradScaler's readable state: scale and growth tracker, state_dict round-trips in Python's
// format, and the per-update telemetry. Every device read here is counted in host_syncs().
#include "ampbench/amp/grad_scaler.h"

#include <ATen/ATen.h>
#include <c10/util/Exception.h>
#include <torch/serialize/input-archive.h>
#include <torch/serialize/output-archive.h>

namespace ampbench::amp {
namespace {

const c10::IValue& required(const c10::Dict<std::string, c10::IValue>& state, const std::string& key) {
  const auto it = state.find(key);
  TORCH_CHECK_VALUE(it != state.end(), "GradScaler::load_state_dict: missing key '", key, "'");
  return it->value();
}

// Python stores these as float; an int is accepted too, as Python would.
double required_double(const c10::Dict<std::string, c10::IValue>& state, const std::string& key) {
  const auto& value = required(state, key);
  TORCH_CHECK_TYPE(value.isDouble() || value.isInt(), "GradScaler::load_state_dict: key '", key,
                   "' must be a float, got ", value.tagKind());
  return value.isDouble() ? value.toDouble() : static_cast<double>(value.toInt());
}

std::int64_t required_int(const c10::Dict<std::string, c10::IValue>& state, const std::string& key) {
  const auto& value = required(state, key);
  TORCH_CHECK_TYPE(value.isInt(), "GradScaler::load_state_dict: key '", key, "' must be an int, got ", value.tagKind());
  return value.toInt();
}

// Dict<_, IValue> has no default constructor: build the generic dict with its element types.
c10::Dict<std::string, c10::IValue> empty_state_dict() {
  return c10::impl::toTypedDict<std::string, c10::IValue>(
      c10::impl::GenericDict(c10::StringType::get(), c10::AnyType::get()));
}

}  // namespace

double GradScaler::read_double(const at::Tensor& tensor) const {
  ++host_syncs_;
  return tensor.item<double>();
}

double GradScaler::get_scale() const {
  if (!enabled_) {
    return 1.0;
  }
  return scale_.defined() ? read_double(scale_) : init_scale_;
}

std::int64_t GradScaler::get_growth_tracker() const {
  if (!enabled_) {
    return 0;
  }
  return growth_tracker_.defined() ? static_cast<std::int64_t>(read_double(growth_tracker_)) : init_growth_tracker_;
}

c10::Dict<std::string, c10::IValue> GradScaler::state_dict() const {
  auto state = empty_state_dict();
  if (!enabled_) {
    return state;
  }
  state.insert("scale", get_scale());
  state.insert("growth_factor", growth_factor_);
  state.insert("backoff_factor", backoff_factor_);
  state.insert("growth_interval", growth_interval_);
  state.insert("_growth_tracker", get_growth_tracker());
  return state;
}

void GradScaler::load_state_dict(const c10::Dict<std::string, c10::IValue>& state) {
  if (!enabled_) {
    return;
  }
  TORCH_CHECK_VALUE(state.size() != 0,
                    "GradScaler::load_state_dict: the state dict is empty, possibly because it was "
                    "saved from a disabled GradScaler.");
  // Validate every key before changing anything, so a bad dict leaves the scaler as it was.
  const double scale = required_double(state, "scale");
  const double growth_factor = required_double(state, "growth_factor");
  const double backoff_factor = required_double(state, "backoff_factor");
  const std::int64_t growth_interval = required_int(state, "growth_interval");
  const std::int64_t growth_tracker = required_int(state, "_growth_tracker");
  TORCH_CHECK_VALUE(growth_factor > 1.0,
                    "GradScaler::load_state_dict: 'growth_factor' must be > "
                    "1.0, got ",
                    growth_factor);
  TORCH_CHECK_VALUE(backoff_factor < 1.0,
                    "GradScaler::load_state_dict: 'backoff_factor' must be "
                    "< 1.0, got ",
                    backoff_factor);

  init_scale_ = scale;
  growth_factor_ = growth_factor;
  backoff_factor_ = backoff_factor;
  growth_interval_ = growth_interval;
  init_growth_tracker_ = growth_tracker;
  if (scale_.defined()) {
    scale_.fill_(scale);
    growth_tracker_.fill_(growth_tracker);
  }
}

void GradScaler::load_state_dict(const c10::impl::GenericDict& state) {
  auto typed = empty_state_dict();
  for (const auto& entry : state) {
    TORCH_CHECK_TYPE(entry.key().isString(), "GradScaler::load_state_dict: keys must be strings, got a key of type ",
                     entry.key().tagKind());
    typed.insert(entry.key().toStringRef(), entry.value());
  }
  load_state_dict(typed);
}

void GradScaler::save(torch::serialize::OutputArchive& archive) const {
  for (const auto& entry : state_dict()) archive.write(entry.key(), entry.value());
}

void GradScaler::load(torch::serialize::InputArchive& archive) {
  auto state = empty_state_dict();
  for (const char* key : {"scale", "growth_factor", "backoff_factor", "growth_interval", "_growth_tracker"}) {
    c10::IValue value;
    if (archive.try_read(key, value)) state.insert(key, value);
  }
  load_state_dict(state);
}

torch::serialize::OutputArchive& operator<<(torch::serialize::OutputArchive& archive, const GradScaler& scaler) {
  scaler.save(archive);
  return archive;
}

torch::serialize::InputArchive& operator>>(torch::serialize::InputArchive& archive, GradScaler& scaler) {
  scaler.load(archive);
  return archive;
}

std::vector<ScalerStepRecord> GradScaler::telemetry() const {
  std::vector<ScalerStepRecord> records;
  if (telemetry_.size() == 0) {
    return records;
  }
  ++host_syncs_;  // one copy of the whole history to the host
  const at::Tensor history = telemetry_.to_host();
  const auto rows = history.accessor<double, 2>();
  records.reserve(static_cast<std::size_t>(history.size(0)));
  for (std::int64_t i = 0; i < history.size(0); ++i) {
    records.push_back({rows[i][0], rows[i][1] != 0.0});
  }
  return records;
}

void GradScaler::clear_telemetry() { telemetry_.clear(); }

}  // namespace ampbench::amp
