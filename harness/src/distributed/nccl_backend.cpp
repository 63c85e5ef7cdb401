// NCCL's backend, one GPU per rank: ProcessGroupNCCL.hpp needs USE_C10D_NCCL and nccl.h (from the
// nvidia-nccl wheel next to LibTorch's); the code is libtorch_cuda's.
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>

#include "distributed/process_group.h"

namespace ampbench::harness::detail {

c10::intrusive_ptr<c10d::Backend> make_nccl_backend(const c10::intrusive_ptr<c10d::Store>& store, int rank, int size,
                                                    c10::Device device, std::chrono::milliseconds timeout) {
  auto options = c10d::ProcessGroupNCCL::Options::create();
  options->timeout = timeout;
  auto backend = c10::make_intrusive<c10d::ProcessGroupNCCL>(store, rank, size, options);
  (void)device;  // the rank's GPU is the current device, set by the worker before the group opens
  // Each all-reduce's duration from CUDA events on NCCL's stream (Work::getDuration), since the
  // host sees NCCL's work complete as soon as it is enqueued.
  backend->enableCollectivesTiming();
  return backend;
}

}  // namespace ampbench::harness::detail
