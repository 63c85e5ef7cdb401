// Internal: one CUDA graph and the side stream it is captured on, through LibTorch's
// at::cuda::CUDAGraph (what PyTorch's torch.cuda.graph uses). Implemented in cuda_graph_cuda.cpp
// when the CUDA toolkit is found, in cuda_graph_no_cuda.cpp otherwise, where constructing one
// throws.
#pragma once

#include <c10/core/Device.h>

#include <functional>
#include <memory>

namespace ampbench::harness::detail {

class CudaGraph {
 public:
  // A graph for `device`, with a side stream from LibTorch's pool. Throws std::invalid_argument on
  // a build without CUDA or for a device that is not a GPU.
  explicit CudaGraph(c10::Device device);
  ~CudaGraph();
  CudaGraph(const CudaGraph&) = delete;
  CudaGraph& operator=(const CudaGraph&) = delete;

  // Runs `work` on the side stream, ordered after everything queued on the current stream and
  // before anything queued there after it: the eager steps before a capture, which PyTorch's CUDA
  // graph notes ask for (lazy initialisation happens off the capture).
  void on_side_stream(const std::function<void()>& work);
  // Captures what `work` queues on the side stream (nothing runs); the graph's memory comes from a
  // pool of its own. A host sync or a CPU tensor op inside `work` makes CUDA refuse the capture:
  // the error escapes with CUDA's words.
  void capture(const std::function<void()>& work);
  // Replays the captured work on the current stream.
  void replay();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ampbench::harness::detail
