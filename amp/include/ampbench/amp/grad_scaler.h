// Dynamic loss scaling for LibTorch training loops: the semantics of Python's
// torch.amp.GradScaler over any torch::optim::Optimizer, built on the fused AMP ops so that the
// scale never leaves the device and a step costs exactly one host synchronisation.
#pragma once

#include <ATen/core/Dict.h>
#include <ATen/core/ivalue.h>
#include <c10/core/Device.h>
#include <c10/core/DeviceType.h>
#include <torch/optim/optimizer.h>

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ampbench/amp/detail/step_history.h"

namespace torch::serialize {
class OutputArchive;
class InputArchive;
}  // namespace torch::serialize

namespace ampbench::amp {

struct GradScalerOptions {
  double init_scale = 65536.0;  // 2^16, as in PyTorch
  double growth_factor = 2.0;   // must be > 1
  double backoff_factor = 0.5;  // must be < 1
  std::int64_t growth_interval = 2000;
  bool enabled = true;
};

// Telemetry of one update(): the scale the iteration ran with, and whether any optimizer step
// of that iteration was skipped because a gradient held inf or NaN.
struct ScalerStepRecord {
  double scale;
  bool skipped;
};

// What step() did. kDecidedOnDevice: the optimizer is a ScaleAwareOptimizer (FusedSGD,
// FusedAdam, FusedAdamW) that skipped or applied its update inside its kernels; the host did not
// wait to learn which (telemetry() records it).
enum class StepOutcome { kStepped, kSkipped, kDecidedOnDevice };

// Host synchronisations (device -> host reads) the scaler performs, and nothing else does:
//   scale(), unscale_(), update(): none (the scale, growth tracker and found-inf flags stay on
//                                   the device; update() runs at::_amp_update_scale_).
//   step(optimizer):               one, to decide whether to call optimizer.step(); none when
//                                   the optimizer is a ScaleAwareOptimizer.
//   get_scale(), get_growth_tracker(): one each (zero before the first scale()).
//   pending_inv_scale(): none.
//   state_dict(): two; telemetry(): one for the whole history.
// host_syncs() counts them; tests check the count against the dispatcher's record of
// aten::_local_scalar_dense (the op behind every Tensor::item()).
class GradScaler {
 public:
  // device_type is where the scale lives. Like PyTorch, a CUDA scaler on a machine without CUDA
  // warns and disables itself; a device type without AMP kernels throws.
  explicit GradScaler(c10::DeviceType device_type = c10::DeviceType::CUDA, GradScalerOptions options = {});

  // Multiplies a loss (or outputs) by the current scale. Disabled: returns the input unchanged.
  [[nodiscard]] torch::Tensor scale(const torch::Tensor& output);
  [[nodiscard]] std::vector<torch::Tensor> scale(const std::vector<torch::Tensor>& outputs);

  // Divides the optimizer's gradients by the scale in place and records inf/NaN per device.
  // At most once per optimizer between update()s; optional (step() calls it when needed).
  void unscale_(torch::optim::Optimizer& optimizer);

  // Unscales if needed, then runs optimizer.step() unless a gradient held inf or NaN. A
  // ScaleAwareOptimizer instead gets the scale and the inf flag and decides on the device (the
  // gradients are then checked here, not unscaled: its kernel divides them by the scale).
  StepOutcome step(torch::optim::Optimizer& optimizer);

  // Ends the iteration: backs the scale off if any step was skipped, grows it after
  // growth_interval clean iterations, or sets it to new_scale when given.
  void update(std::optional<double> new_scale = std::nullopt);
  // new_scale: a one-element tensor on the scaler's device type, not requiring grad.
  void update(const torch::Tensor& new_scale);

  [[nodiscard]] double get_scale() const;  // 1.0 when disabled
  // The scale itself, a float32 0-dim tensor on the scaler's device that update() changes in
  // place; no host sync. Undefined before the first scale() and when disabled. What a caller that
  // replays a captured step reads after each replay (the captured telemetry row is rewritten).
  [[nodiscard]] at::Tensor scale_on_device() const { return scale_; }

  // The factor that unscales this optimizer's gradients as they are now, without a host sync: a
  // float32 0-dim tensor on the scaler's device, 1/scale rounded as unscale_() rounds it, while
  // they still carry the scale (after scale(loss).backward(), before unscale_(optimizer) or
  // step(optimizer)); nullopt once unscale_() has run, or when the scaler is disabled. Throws
  // before the first scale(), and after step(optimizer) until update() (a ScaleAwareOptimizer's
  // kernel decides on the device whether the gradients were unscaled in place).
  [[nodiscard]] std::optional<at::Tensor> pending_inv_scale(const torch::optim::Optimizer& optimizer) const;
  [[nodiscard]] std::int64_t get_growth_tracker() const;
  [[nodiscard]] bool is_enabled() const { return enabled_; }
  [[nodiscard]] double get_growth_factor() const { return growth_factor_; }
  [[nodiscard]] double get_backoff_factor() const { return backoff_factor_; }
  [[nodiscard]] std::int64_t get_growth_interval() const { return growth_interval_; }
  [[nodiscard]] c10::DeviceType device_type() const { return device_type_; }

  // Keys as in Python: scale, growth_factor, backoff_factor, growth_interval, _growth_tracker.
  // Empty when disabled. Take it after update(), as in PyTorch.
  [[nodiscard]] c10::Dict<std::string, c10::IValue> state_dict() const;
  // Throws naming the key that is missing or of the wrong type; no-op when disabled.
  void load_state_dict(const c10::Dict<std::string, c10::IValue>& state);
  // The same from an untyped dict: what `torch::pickle_load` gives for a state_dict Python saved
  // with torch.save (Dict<Any, Any>, on which toTypedDict would assert). Every key must be a
  // string; a key that is not is named by its type.
  void load_state_dict(const c10::impl::GenericDict& state);
  // The state_dict's keys in a torch::serialize archive, as torch::optim's optimizers do, so
  // `torch::save(scaler, path)` and `torch::load(scaler, path)` work (operators below). load()
  // validates like load_state_dict.
  void save(torch::serialize::OutputArchive& archive) const;
  void load(torch::serialize::InputArchive& archive);

  // One record per update() since construction or clear_telemetry(); recorded on the device
  // without syncs, materialised here with one.
  [[nodiscard]] std::vector<ScalerStepRecord> telemetry() const;
  void clear_telemetry();

  [[nodiscard]] std::int64_t host_syncs() const { return host_syncs_; }

 private:
  enum class OptimizerStage { kReady, kUnscaled, kStepped };
  struct OptimizerState {
    OptimizerStage stage = OptimizerStage::kReady;
    // One float32 flag per device holding this optimizer's gradients: > 0 when inf/NaN seen.
    std::vector<std::pair<c10::Device, at::Tensor>> found_inf_per_device;
  };

  void require_scale(const char* caller) const;
  void lazy_init(const c10::Device& device);
  void check_output(const torch::Tensor& output) const;
  [[nodiscard]] std::vector<std::pair<c10::Device, at::Tensor>> unscale_grads(torch::optim::Optimizer& optimizer,
                                                                              const at::Tensor& inv_scale,
                                                                              bool allow_fp16);
  [[nodiscard]] at::Tensor found_inf_on_scale_device(const OptimizerState& state) const;
  [[nodiscard]] at::Tensor combined_found_inf() const;
  [[nodiscard]] at::Tensor inv_scale() const;
  void record_telemetry(const at::Tensor& found_inf);
  [[nodiscard]] double read_double(const at::Tensor& tensor) const;

  c10::DeviceType device_type_;
  bool enabled_;
  double init_scale_;
  double growth_factor_;
  double backoff_factor_;
  std::int64_t growth_interval_;
  std::int64_t init_growth_tracker_ = 0;
  at::Tensor scale_;           // float32, 0-dim (as in PyTorch: a [1] scale would promote fp16)
  at::Tensor growth_tracker_;  // int32, 0-dim
  std::unordered_map<const torch::optim::Optimizer*, OptimizerState> per_optimizer_;
  // Telemetry rows (scale, combined found_inf), float32 on the scale's device: one kernel per
  // update(), no host sync.
  detail::StepHistory telemetry_{2};
  mutable std::int64_t host_syncs_ = 0;
};

// What torch::save and torch::load call (found by argument-dependent lookup).
torch::serialize::OutputArchive& operator<<(torch::serialize::OutputArchive& archive, const GradScaler& scaler);
torch::serialize::InputArchive& operator>>(torch::serialize::InputArchive& archive, GradScaler& scaler);

}  // namespace ampbench::amp
