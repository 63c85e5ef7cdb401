// ampbench's autocast scope for LibTorch's C++ frontend: inside an Autocast scope, unmodified
// torch::nn modules run each ATen op in the precision the op policy table (op_policy.h) gives it.
// Counters of what ran in which dtype are in op_counters.h.
//
// How it works. The first scope on a device type registers one boxed kernel per table op on the
// AutocastCPU / AutocastCUDA dispatch key (a torch::Library fragment kept for the life of the
// process, or until release_autocast_kernels()). Those kernels shadow LibTorch's native autocast
// kernels for the table's ops; ops outside the table keep their native autocast behaviour.
// A scope itself only flips at::autocast's thread-local switches (enabled, dtype, nesting), so
// entering one costs a few thread-local writes, never a dispatcher registration.
//
// The registration warning. Replacing a native kernel makes c10 print "Overriding a previously
// registered kernel for the same operator and the same dispatch key" once per process. That is
// the intended effect here, not a user error, so ampbench filters exactly that warning (and only
// while it registers, on the registering thread); every other warning passes through unchanged.
#pragma once

#include <c10/core/DeviceType.h>
#include <c10/core/ScalarType.h>

namespace ampbench::amp {

// RAII autocast scope for one device type, for the calling thread. Nestable: each scope saves the
// thread's previous state for its device type (enabled flag and dtype) and restores it exactly on
// exit, also when an exception unwinds. Casts of weights (fp32 leaves that require grad) are
// cached while the outermost scope lives and dropped when it exits, as in PyTorch; so are casts
// of a weight's plain transpose, because the C++ frontend's torch::nn::Linear passes a fresh
// weight.t() on every call where Python's passes the weight itself to aten::linear.
class Autocast {
 public:
  // An enabled scope. device_type: CPU or CUDA; dtype: BFloat16 or Half. Anything else throws
  // std::invalid_argument naming the bad device type or dtype. A CUDA scope may be entered on a
  // machine without a GPU: it then only affects CUDA tensors, of which there are none.
  Autocast(c10::DeviceType device_type, c10::ScalarType dtype);

  // An explicit disabled scope (e.g. inside an enabled one): ops run as written until it exits.
  [[nodiscard]] static Autocast disabled(c10::DeviceType device_type);

  ~Autocast();
  Autocast(const Autocast&) = delete;
  Autocast& operator=(const Autocast&) = delete;
  Autocast(Autocast&&) = delete;
  Autocast& operator=(Autocast&&) = delete;

 private:
  struct DisabledTag {};
  Autocast(c10::DeviceType device_type, DisabledTag tag);

  c10::DeviceType device_type_;
  bool previous_enabled_;
  c10::ScalarType previous_dtype_;
};

// Unregisters ampbench's autocast kernels on every device type, so LibTorch's native autocast
// kernels handle all ops again (tests use it to take native reference results). The next Autocast
// scope registers them again. Call it only while no thread is inside an Autocast scope.
void release_autocast_kernels();

// Whether ampbench's kernels are registered for this device type right now.
[[nodiscard]] bool autocast_kernels_installed(c10::DeviceType device_type);

}  // namespace ampbench::amp
