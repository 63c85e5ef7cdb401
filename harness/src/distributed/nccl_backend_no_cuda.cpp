#include <stdexcept>

#include "distributed/process_group.h"

namespace ampbench::harness::detail {

c10::intrusive_ptr<c10d::Backend> make_nccl_backend(const c10::intrusive_ptr<c10d::Store>&, int, int, c10::Device,
                                                    std::chrono::milliseconds) {
  throw std::runtime_error("NCCL: this ampbench was built without CUDA");
}

}  // namespace ampbench::harness::detail
