// How autocast kernels add to the calling thread's op counters (op_counters.h). Private.
#pragma once

#include <c10/core/ScalarType.h>

#include <cstddef>

namespace ampbench::amp::detail {

// One call of the op entry `entry_id`; input: the first floating-point tensor argument's dtype as
// passed (Undefined if none), output: the first tensor result's dtype.
void record_op_call(std::size_t entry_id, c10::ScalarType input, c10::ScalarType output, double flops);

}  // namespace ampbench::amp::detail
