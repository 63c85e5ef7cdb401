// Private: turns amp's per-op counters into the report's precision audit.
#pragma once

#include <ampbench/amp/op_counters.h>

#include <vector>

#include "ampbench/reports/report.h"

namespace ampbench::harness::detail {

// The share of forward FLOPs whose op produced float16 or bfloat16, and the counters as they are.
[[nodiscard]] reports::PrecisionAudit precision_audit(const std::vector<amp::OpCount>& counts);

}  // namespace ampbench::harness::detail
