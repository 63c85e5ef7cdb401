#include "measure/precision_audit.h"

#include <c10/core/ScalarType.h>

namespace ampbench::harness::detail {

reports::PrecisionAudit precision_audit(const std::vector<amp::OpCount>& counts) {
  reports::PrecisionAudit audit;
  double low_precision_flops = 0.0;
  double total_flops = 0.0;
  for (const auto& count : counts) {
    audit.ops.push_back(
        {count.op, c10::toString(count.input_dtype), c10::toString(count.output_dtype), count.calls, count.flops});
    total_flops += count.flops;
    if (count.output_dtype == c10::ScalarType::Half || count.output_dtype == c10::ScalarType::BFloat16) {
      low_precision_flops += count.flops;
    }
  }
  audit.low_precision_flop_share = total_flops > 0.0 ? low_precision_flops / total_flops : 0.0;
  return audit;
}

}  // namespace ampbench::harness::detail
