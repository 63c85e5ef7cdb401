// Autocast for custom autograd functions (torch::autograd::Function<T>): the C++ counterpart of
// Python's torch.amp.custom_fwd / custom_bwd. LibTorch runs T::backward under whatever autocast
// state the thread has when backward() is called (usually none), not under the state forward ran
// in; a backward that mixes forward's low-precision outputs with its saved float32 inputs then
// fails on a dtype mismatch, or quietly runs in another precision than forward.
//
//   struct MyMm : torch::autograd::Function<MyMm> {
//     static at::Tensor forward(AutogradContext* ctx, const at::Tensor& a, const at::Tensor& b) {
//       ampbench::amp::CustomForwardScope scope(ctx, c10::DeviceType::CUDA);
//       ctx->save_for_backward({a, b});
//       return a.mm(b);
//     }
//     static variable_list backward(AutogradContext* ctx, variable_list grads) {
//       ampbench::amp::CustomBackwardScope scope(ctx, c10::DeviceType::CUDA);  // forward's state
//       ...
//     }
//   };
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/DeviceType.h>
#include <c10/core/ScalarType.h>

#include <memory>
#include <optional>

#include "ampbench/amp/autocast.h"

namespace torch::autograd {
struct AutogradContext;
}

namespace ampbench::amp {

// First line of T::forward. Records the caller's autocast state for device_type (enabled, dtype)
// in ctx for CustomBackwardScope, as custom_fwd does.
class CustomForwardScope {
 public:
  // custom_fwd(device_type=...): forward runs under the caller's autocast state, unchanged.
  CustomForwardScope(torch::autograd::AutogradContext* ctx, c10::DeviceType device_type);

  // custom_fwd(device_type=..., cast_inputs=dtype): when the caller's autocast is enabled,
  // autocast is disabled until this scope ends and cast() converts forward's inputs to `dtype`
  // (pass each input through it); backward then runs with autocast disabled too. When the
  // caller's autocast is disabled, nothing changes and cast() returns its input.
  CustomForwardScope(torch::autograd::AutogradContext* ctx, c10::DeviceType device_type, c10::ScalarType cast_inputs);

  // `input` in the cast_inputs dtype if it is a floating-point tensor (not float64) on this
  // scope's device type and casting applies (see above); otherwise `input` itself.
  [[nodiscard]] at::Tensor cast(const at::Tensor& input) const;

 private:
  c10::DeviceType device_type_;
  std::optional<c10::ScalarType> cast_to_;
  std::unique_ptr<Autocast> disabled_;  // Autocast cannot move: held by pointer
};

// First line of T::backward. Runs backward under the autocast state forward recorded, as
// custom_bwd does, through ampbench's own Autocast scope (its kernels, its nesting and its
// weight-cast cache, which the scope drops on exit), not only LibTorch's switches. Throws when
// forward had no CustomForwardScope for device_type.
class CustomBackwardScope {
 public:
  CustomBackwardScope(torch::autograd::AutogradContext* ctx, c10::DeviceType device_type);

 private:
  std::unique_ptr<Autocast> autocast_;
};

}  // namespace ampbench::amp
