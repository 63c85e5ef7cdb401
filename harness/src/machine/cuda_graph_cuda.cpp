// Through LibTorch's exported classes only (at::cuda::CUDAGraph, the stream pool, c10's generic
// events and guards): their CUDA-specific inline helpers call the CUDA runtime directly, which
// would link a runtime of ampbench's own (docs/building.md, "Which CUDA libraries").
#include <ATen/cuda/CUDAGraph.h>
#include <c10/core/DeviceGuard.h>
#include <c10/core/Event.h>
#include <c10/core/StreamGuard.h>
#include <c10/cuda/CUDAStream.h>

#include <stdexcept>

#include "machine/cuda_graph.h"

namespace ampbench::harness::detail {

struct CudaGraph::Impl {
  explicit Impl(c10::Device on) : device(on), side(c10::cuda::getStreamFromPool(false, on.index()).unwrap()) {}

  c10::Device device;
  c10::Stream side;
  at::cuda::CUDAGraph graph;

  // `work` on the side stream, fenced by events against the current stream on both ends.
  void fenced(const std::function<void()>& work) {
    const c10::DeviceGuard device_guard(device);
    const c10::Stream current = c10::cuda::getCurrentCUDAStream(device.index()).unwrap();
    c10::Event before(c10::DeviceType::CUDA);
    before.record(current);
    before.block(side);
    {
      const c10::StreamGuard stream_guard(side);
      work();
    }
    c10::Event after(c10::DeviceType::CUDA);
    after.record(side);
    after.block(current);
  }
};

CudaGraph::CudaGraph(c10::Device device) {
  if (!device.is_cuda() || !device.has_index()) {
    throw std::invalid_argument("CUDA graphs need an indexed CUDA device (cuda:N), not " + device.str());
  }
  const c10::DeviceGuard guard(device);
  impl_ = std::make_unique<Impl>(device);
}

CudaGraph::~CudaGraph() = default;

void CudaGraph::on_side_stream(const std::function<void()>& work) { impl_->fenced(work); }

void CudaGraph::capture(const std::function<void()>& work) {
  impl_->fenced([&] {
    impl_->graph.capture_begin();
    try {
      work();
    } catch (...) {
      // End the capture so the stream is usable again; CUDA's own error is the one to report.
      try {
        impl_->graph.capture_end();
      } catch (...) {
      }
      throw;
    }
    impl_->graph.capture_end();
  });
}

void CudaGraph::replay() {
  const c10::DeviceGuard guard(impl_->device);
  impl_->graph.replay();
}

}  // namespace ampbench::harness::detail
