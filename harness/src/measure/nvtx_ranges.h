// Private: NVTX3 ranges in an "ampbench" domain around each cell and each phase of a step
// (forward, backward, unscale, optimizer step, scaler update), so Nsight Systems timelines show
// them, and the same phases as LibTorch profiler scopes. NVTX3 is header-only: without a tool
// attached (NVTX_INJECTION64_PATH) a range costs a branch. Without the CUDA toolkit the NVTX
// ranges compile to nothing.
#pragma once

#include <ATen/record_function.h>

#include <string>
#include <string_view>

#if AMPBENCH_WITH_CUDA
#include <nvtx3/nvToolsExt.h>
#endif

#include "measure/step_phases.h"

namespace ampbench::harness::detail {

#if AMPBENCH_WITH_CUDA
inline nvtxDomainHandle_t ampbench_nvtx_domain() {
  static const nvtxDomainHandle_t domain = nvtxDomainCreateA("ampbench");
  return domain;
}
#endif

// The phase as an NVTX range and, while LibTorch's profiler records (the time breakdown of
// time_breakdown.h), as a user scope "ampbench::<phase>". Neither costs more than a branch when
// nothing listens.
class PhaseRange {
 public:
  explicit PhaseRange(StepPhase phase) : PhaseRange(phase_name(phase)) {}
  explicit PhaseRange(const char* name) {
#if AMPBENCH_WITH_CUDA
    nvtxEventAttributes_t attributes{};
    attributes.version = NVTX_VERSION;
    attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
    attributes.message.ascii = name;
    nvtxDomainRangePushEx(ampbench_nvtx_domain(), &attributes);
#endif
    if (record_.isActive()) {
      record_name_ = std::string(kScopePrefix) + name;
      at::detail::record_function_with_scope(record_, std::string_view(record_name_),
                                             c10::ArrayRef<const c10::IValue>{});
    }
  }
  ~PhaseRange() {
#if AMPBENCH_WITH_CUDA
    nvtxDomainRangePop(ampbench_nvtx_domain());
#endif
  }
  PhaseRange(const PhaseRange&) = delete;
  PhaseRange& operator=(const PhaseRange&) = delete;

 private:
  std::string record_name_;  // declared first: outlives record_, which refers to it
  at::RecordFunction record_{at::RecordScope::USER_SCOPE};
};

}  // namespace ampbench::harness::detail
