#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

#include <stdexcept>

#include "machine/cuda_graph.h"

namespace ampbench::harness::detail {

struct CudaGraph::Impl {
  explicit Impl(c10::Device on) : device(on), side(c10::cuda::getStreamFromPool(false, on.index())) {}

  c10::Device device;
  c10::cuda::CUDAStream side;
  at::cuda::CUDAGraph graph;

  // `work` on the side stream, fenced by events against the current stream on both ends.
  void fenced(const std::function<void()>& work) {
    const c10::cuda::CUDAGuard device_guard(device);
    const auto current = c10::cuda::getCurrentCUDAStream(device.index());
    c10::cuda::CUDAEvent before;
    before.record(current);
    before.block(side);
    {
      const c10::cuda::CUDAStreamGuard stream_guard(side);
      work();
    }
    c10::cuda::CUDAEvent after;
    after.record(side);
    after.block(current);
  }
};

CudaGraph::CudaGraph(c10::Device device) {
  if (!device.is_cuda()) throw std::invalid_argument("CUDA graphs need a CUDA device, not " + device.str());
  const c10::cuda::CUDAGuard guard(device);
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
  const c10::cuda::CUDAGuard guard(impl_->device);
  impl_->graph.replay();
}

}  // namespace ampbench::harness::detail
