// Gloo's backend, the one file that includes ProcessGroupGloo.hpp: it needs Gloo's own headers
// (libgloo-dev) and USE_C10D_GLOO; the code is the Gloo built into libtorch_cpu.
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>

#include "distributed/process_group.h"

namespace ampbench::harness::detail {

c10::intrusive_ptr<c10d::Backend> make_gloo_backend(const c10::intrusive_ptr<c10d::Store>& store, int rank, int size,
                                                    const std::string& host, std::chrono::milliseconds timeout) {
  auto options = c10d::ProcessGroupGloo::Options::create(timeout);
  // The address the other ranks reach this one at: the interface toward the store's host.
  options->devices.push_back(host.empty() ? c10d::ProcessGroupGloo::createDefaultDevice()
                                          : c10d::ProcessGroupGloo::createDeviceForHostname(host));
  return c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, size, options);
}

}  // namespace ampbench::harness::detail
