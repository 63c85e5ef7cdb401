// Private: NVTX3 ranges in an "ampbench" domain around each cell and each phase of a step
// (forward, backward, unscale, optimizer step, scaler update), so Nsight Systems timelines show
// them. NVTX3 is header-only: without a tool attached (NVTX_INJECTION64_PATH) a range costs a
// branch. Without the CUDA toolkit the ranges compile to nothing.
#pragma once

#if AMPBENCH_WITH_CUDA
#include <nvtx3/nvToolsExt.h>
#endif

namespace ampbench::harness::detail {

#if AMPBENCH_WITH_CUDA
inline nvtxDomainHandle_t ampbench_nvtx_domain() {
  static const nvtxDomainHandle_t domain = nvtxDomainCreateA("ampbench");
  return domain;
}

class PhaseRange {
 public:
  explicit PhaseRange(const char* name) {
    nvtxEventAttributes_t attributes{};
    attributes.version = NVTX_VERSION;
    attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
    attributes.message.ascii = name;
    nvtxDomainRangePushEx(ampbench_nvtx_domain(), &attributes);
  }
  ~PhaseRange() { nvtxDomainRangePop(ampbench_nvtx_domain()); }
  PhaseRange(const PhaseRange&) = delete;
  PhaseRange& operator=(const PhaseRange&) = delete;
};
#else
class PhaseRange {
 public:
  explicit PhaseRange(const char* /*name*/) {}
};
#endif

}  // namespace ampbench::harness::detail
