// LayerRangeRecorder (layer_ranges.h): which module each top-level op of the forward belongs to,
// the statistics of its outputs and of the gradients that reach them.
#include "measure/layer_ranges.h"

#include "measure/mode_session.h"

#include <ATen/ATen.h>
#include <c10/core/impl/LocalDispatchKeySet.h>
#include <torch/autograd.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>

namespace ampbench::harness::detail {
namespace {

// bucketize's edges (a value v lands in bucket i when edge[i-1] < v <= edge[i]): zero; float16
// rounds |v| <= 2^-25 to zero (round to nearest, ties to even); below 2^-14, its smallest normal,
// subnormal; above 65504, its largest finite value, it overflows.
at::Tensor bucket_edges(c10::Device device) {
  return at::tensor({0.0F, std::ldexp(1.0F, -25), std::nextafter(std::ldexp(1.0F, -14), 0.0F), 65504.0F},
                    at::TensorOptions(at::kFloat))
      .to(device);
}

// The recorder whose forward this thread is in, and how deep in nested ops the thread is (only
// top-level ops are the model's own; what they call inside is theirs).
thread_local LayerRangeRecorder* active_recorder = nullptr;
thread_local int op_depth = 0;

// What the start callback learnt from an op's inputs, for its end callback.
struct OpInputs final : at::ObserverContext {
  bool top_level = false;
  LayerRangeRecorder::OpOwner owner;
};

template <class Values, class Fn>
void for_each_tensor(const Values& values, Fn&& fn) {
  for (const auto& value : values) {
    if (value.isTensor()) {
      fn(value.toTensor());
    } else if (value.isList()) {
      for (const c10::IValue& element : value.toListRef()) {
        if (element.isTensor()) fn(element.toTensor());
      }
    }
  }
}

std::unique_ptr<at::ObserverContext> on_op_start(const at::RecordFunction& op) {
  auto inputs = std::make_unique<OpInputs>();
  inputs->top_level = op_depth++ == 0;
  if (inputs->top_level && active_recorder != nullptr) inputs->owner = active_recorder->owner_of_inputs(op.inputs());
  return inputs;
}

void on_op_end(const at::RecordFunction& op, at::ObserverContext* context) {
  --op_depth;
  const auto* inputs = static_cast<const OpInputs*>(context);
  if (inputs->top_level && inputs->owner.module && active_recorder != nullptr) {
    active_recorder->on_top_level_op(op, inputs->owner);
  }
}

// The statistics' own ops must neither be watched, nor recorded by autograd, nor cast by autocast.
struct QuietOps {
  at::DisableRecordFunctionGuard no_record_function;
  at::NoGradGuard no_grad;
  c10::impl::ExcludeDispatchKeyGuard no_autocast{c10::autocast_dispatch_keyset};
};

// One row per tensor, as doubles: [amax of the finite values, then counts: zero (non-finite values
// included), flushed (<= 2^-25), float16-subnormal and not flushed, normal, above 65504,
// non-finite]. One bucketize and one bincount instead of a comparison and a sum per share: on
// SimpleNet's small tensors the statistics are dispatch-bound.
constexpr std::int64_t kNonFiniteCount = 6;
at::Tensor range_counts(const at::Tensor& tensor, const at::Tensor& boundaries) {
  const auto magnitude = tensor.detach().abs().to(at::kFloat).flatten();
  const auto finite = at::isfinite(magnitude);
  const auto finite_magnitude = at::where(finite, magnitude, 0);
  const auto counts = at::bincount(at::bucketize(finite_magnitude, boundaries), {}, 5);
  return at::cat({finite_magnitude.max().unsqueeze(0).to(at::kDouble), counts.to(at::kDouble),
                  at::logical_not(finite).sum().unsqueeze(0).to(at::kDouble)});
}

// Adds a tensor's counts (one row of range_counts) to a module's figures; shares are made at the
// end (to_shares), so that several ops of one module weigh by their elements.
void add_counts(std::optional<reports::TensorRange>& into, const double* row, std::int64_t elements,
                c10::ScalarType dtype) {
  if (!into) into.emplace().dtype = dtype_name(dtype);
  into->elements += elements;
  into->amax = std::max(into->amax, row[0]);
  into->zero += row[1] - row[kNonFiniteCount];
  into->flushed_in_fp16 += row[2];
  into->fp16_subnormal += row[2] + row[3];
  into->above_fp16_max += row[5];
  into->non_finite += row[kNonFiniteCount];
}

void to_shares(std::optional<reports::TensorRange>& range) {
  if (!range || range->elements == 0) return;
  const auto elements = static_cast<double>(range->elements);
  for (double* share :
       {&range->above_fp16_max, &range->fp16_subnormal, &range->flushed_in_fp16, &range->zero, &range->non_finite}) {
    *share /= elements;
  }
}

// Steps that went bad: skipped by the scaler, or without one the first whose loss is not finite.
std::vector<std::int64_t> bad_steps(const std::vector<amp::ScalerStepRecord>& telemetry,
                                    const std::vector<double>& train_loss) {
  std::vector<std::int64_t> bad;
  if (!telemetry.empty()) {
    for (std::size_t step = 0; step < telemetry.size(); ++step) {
      if (telemetry[step].skipped) bad.push_back(static_cast<std::int64_t>(step));
    }
    return bad;
  }
  const auto first =
      std::find_if(train_loss.begin(), train_loss.end(), [](double loss) { return !std::isfinite(loss); });
  if (first != train_loss.end()) bad.push_back(first - train_loss.begin());
  return bad;
}

}  // namespace

LayerRangeRecorder::LayerRangeRecorder(torch::nn::Module& model) {
  for (const auto& item : model.named_modules("", /*include_self=*/true)) {
    const auto own = item.value()->named_parameters(/*recurse=*/false);
    if (own.is_empty()) continue;
    const auto index = paths_.size();
    paths_.push_back(item.key().empty() ? reports::kWholeModelLayer : item.key());
    for (const auto& parameter : own) owner_.emplace(parameter.value().unsafeGetTensorImpl(), index);
  }
  first_seen_.assign(paths_.size(), -1);
}

LayerRangeRecorder::~LayerRangeRecorder() { end_forward(); }

void LayerRangeRecorder::begin_step(std::int64_t step, bool observed) {
  observing_ = observed;
  current_ = CurrentStep{step, {}, {}, {}};
}

void LayerRangeRecorder::begin_forward() {
  if (callback_ != 0) return;
  active_recorder = this;
  op_depth = 0;
  callback_ = at::addThreadLocalCallback(at::RecordFunctionCallback(on_op_start, on_op_end)
                                             .needsInputs(true)
                                             .needsOutputs(true)
                                             .scopes({at::RecordScope::FUNCTION}));
}

void LayerRangeRecorder::end_forward() {
  if (callback_ == 0) return;
  at::removeCallback(callback_);
  callback_ = 0;
  active_recorder = nullptr;
  derived_.clear();
}

LayerRangeRecorder::OpOwner LayerRangeRecorder::owner_of_inputs(c10::ArrayRef<const c10::IValue> inputs) const {
  OpOwner owner;
  for_each_tensor(inputs, [&](const at::Tensor& tensor) {
    if (!tensor.defined()) return;
    const auto* impl = tensor.unsafeGetTensorImpl();
    std::optional<std::size_t> module;
    if (const auto found = owner_.find(impl); found != owner_.end()) module = found->second;
    if (const auto found = derived_.find(impl); found != derived_.end()) module = found->second.first;
    if (!module) {
      owner.other_input = true;
    } else if (!owner.module) {
      owner.module = module;
    }
  });
  return owner;
}

void LayerRangeRecorder::on_top_level_op(const at::RecordFunction& op, const OpOwner& owner) {
  const auto module = *owner.module;
  for_each_tensor(op.outputs(), [&](const at::Tensor& output) {
    if (!output.defined() || !output.is_floating_point()) return;
    if (!owner.other_input) {  // made from the module's parameters alone: a cast, a view, a slice
      derived_[output.unsafeGetTensorImpl()] = {module, output};
      return;
    }
    if (first_seen_[module] < 0) first_seen_[module] = seen_++;
    record(module, output, false);
    if (output.requires_grad()) {
      output.register_hook([this, module](const at::Tensor& gradient) { on_gradient(module, gradient); });
    }
  });
}

void LayerRangeRecorder::on_gradient(std::size_t module, const at::Tensor& gradient) {
  if (gradient.defined()) record(module, gradient, true);
}

void LayerRangeRecorder::record(std::size_t module, const at::Tensor& tensor, bool gradient) {
  if (tensor.numel() == 0) return;
  const QuietOps quiet;
  current_.record.order.push_back({module, gradient, tensor.numel(), tensor.scalar_type()});
  if (observing_) {
    if (!edges_.defined() || edges_.device() != tensor.device()) edges_ = bucket_edges(tensor.device());
    auto counts = range_counts(tensor, edges_);
    current_.finite_flags.push_back(counts[kNonFiniteCount] == 0);
    current_.counts.push_back(std::move(counts));
  } else {
    current_.finite_flags.push_back(at::isfinite(tensor.detach()).all());
  }
}

void LayerRangeRecorder::end_step() {
  const QuietOps quiet;
  auto& record = current_.record;
  if (!current_.finite_flags.empty()) record.finite = at::stack(current_.finite_flags);
  if (observing_) {
    std::vector<reports::LayerRangeStep> layers(paths_.size());
    if (!current_.counts.empty()) {
      const auto counts = at::stack(current_.counts).cpu().contiguous();
      for (std::size_t entry = 0; entry < record.order.size(); ++entry) {
        const auto& recorded = record.order[entry];
        auto& layer = layers[recorded.module];
        add_counts(recorded.gradient ? layer.gradient : layer.output,
                   counts[static_cast<std::int64_t>(entry)].data_ptr<double>(), recorded.elements, recorded.dtype);
      }
    }
    for (auto& layer : layers) {
      to_shares(layer.output);
      to_shares(layer.gradient);
    }
    observed_.push_back({current_.step, std::move(layers)});
  }
  steps_[current_.step] = std::move(record);
  current_ = CurrentStep{};
}

reports::LayerDiagnostics LayerRangeRecorder::finish(const std::vector<amp::ScalerStepRecord>& telemetry,
                                                     const std::vector<double>& train_loss) {
  reports::LayerDiagnostics diagnostics;
  for (const auto& observed : observed_) {
    const auto index = static_cast<std::size_t>(observed.step);
    diagnostics.steps.push_back(observed.step);
    diagnostics.scales.push_back(index < telemetry.size() ? telemetry[index].scale : 1.0);
  }
  std::vector<std::size_t> seen;
  for (std::size_t module = 0; module < paths_.size(); ++module) {
    if (first_seen_[module] >= 0) seen.push_back(module);
  }
  std::sort(seen.begin(), seen.end(), [&](auto a, auto b) { return first_seen_[a] < first_seen_[b]; });
  for (const auto module : seen) {
    reports::LayerRanges layer{paths_[module], {}};
    for (const auto& observed : observed_) layer.steps.push_back(observed.layers[module]);
    diagnostics.layers.push_back(std::move(layer));
  }

  const auto bad = bad_steps(telemetry, train_loss);
  diagnostics.bad_steps = static_cast<std::int64_t>(bad.size());
  const QuietOps quiet;
  for (const auto step : bad) {
    if (diagnostics.non_finite_origins.size() == reports::kMaxNonFiniteOrigins) break;
    reports::NonFiniteOrigin origin{step, "", ""};
    const auto found = steps_.find(step);
    if (found != steps_.end() && found->second.finite.defined()) {
      const auto& record = found->second;
      const auto finite = record.finite.cpu().contiguous();
      const auto* flags = finite.data_ptr<bool>();
      for (std::size_t entry = 0; entry < record.order.size(); ++entry) {
        if (flags[entry]) continue;
        origin.module = paths_[record.order[entry].module];
        origin.tensor = record.order[entry].gradient ? "gradient" : "output";
        break;
      }
    }
    diagnostics.non_finite_origins.push_back(std::move(origin));
  }

  if (paths_.empty()) {
    diagnostics.note = "the model has no parameters: there is no module to attribute ranges to";
  } else if (seen.empty()) {
    diagnostics.note = "no op of the forward took the model's parameters with an input: no module's output was seen";
  } else if (paths_.size() == 1 && paths_.front() == reports::kWholeModelLayer) {
    diagnostics.note = "the model registers no submodules with parameters: its one row is the whole model";
  }
  return diagnostics;
}

ForwardObservation::ForwardObservation(LayerRangeRecorder* recorder) : recorder_(recorder) {
  if (recorder_ != nullptr) recorder_->begin_forward();
}

ForwardObservation::~ForwardObservation() {
  if (recorder_ != nullptr) recorder_->end_forward();
}

}  // namespace ampbench::harness::detail
