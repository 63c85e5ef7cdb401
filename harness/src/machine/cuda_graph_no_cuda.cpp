#include <stdexcept>

#include "machine/cuda_graph.h"

namespace ampbench::harness::detail {

struct CudaGraph::Impl {};

CudaGraph::CudaGraph(c10::Device /*device*/) {
  throw std::invalid_argument("CUDA graphs need a build with CUDA; this ampbench was built without it");
}

CudaGraph::~CudaGraph() = default;

void CudaGraph::on_side_stream(const std::function<void()>& /*work*/) {}
void CudaGraph::capture(const std::function<void()>& /*work*/) {}
void CudaGraph::replay() {}

}  // namespace ampbench::harness::detail
