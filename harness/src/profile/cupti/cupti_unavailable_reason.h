// Turns a failed CUPTI call into the one-line reason a report shows when tensor-core counters
// could not be read, with what to do about it where there is something to do.
#pragma once

#include <cupti_result.h>

#include <stdexcept>
#include <string>
#include <string_view>

#include "profile/cupti/requires_cuda.h"

namespace ampbench::harness::cupti {

// `context` says what ampbench was doing, e.g. "cuptiRangeProfilerEnable on device 0". The result
// reads "<what it means and how to fix it> (<context>: <CUPTI result name>)", on one line.
[[nodiscard]] std::string reason_for(CUptiResult result, std::string_view context);

// A CUPTI call that did not succeed; what() is reason_for(result(), context).
class CuptiCallFailed : public std::runtime_error {
 public:
  CuptiCallFailed(CUptiResult result, std::string_view context);
  [[nodiscard]] CUptiResult result() const { return result_; }

 private:
  CUptiResult result_;
};

// Throws CuptiCallFailed unless `result` is CUPTI_SUCCESS.
void check_cupti(CUptiResult result, std::string_view context);

}  // namespace ampbench::harness::cupti
