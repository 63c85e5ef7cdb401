// What ampbench's autocast kernels did on the calling thread: calls per op and dtype with their
// forward FLOPs, and the weight-cast cache's work. The harness reads these to report which share
// of a step's FLOPs ran in low precision. Ops outside the policy table are not seen, so not counted.
#pragma once

#include <c10/core/DeviceType.h>
#include <c10/core/ScalarType.h>

#include <cstdint>
#include <string>
#include <vector>

namespace ampbench::amp {

// Calls of one op with one (input dtype, output dtype) pair.
struct OpCount {
  std::string op;                // as in the policy table: "addmm", "conv2d.padding"
  c10::ScalarType input_dtype;   // first floating-point tensor argument, as the caller passed it
  c10::ScalarType output_dtype;  // first tensor result: the precision the op ran in
  std::int64_t calls = 0;
  double flops = 0.0;                                  // forward FLOPs (a multiply-add is 2) summed over the calls:
                                                       // mm, addmm, bmm, baddbmm, addbmm, matmul, linear, conv*,
                                                       // conv_transpose*, scaled_dot_product_attention; 0 otherwise
  c10::DeviceType device_type = c10::DeviceType::CPU;  // whose table the op's kernel came from
};

// The calling thread's counts since its last reset_op_counts(), in first-seen order.
[[nodiscard]] std::vector<OpCount> op_counts();
void reset_op_counts();

// Share of the counted FLOPs whose op ran in a 16-bit float type (output_dtype BFloat16 or Half);
// 0 when nothing with FLOPs was counted.
[[nodiscard]] double low_precision_flop_share(const std::vector<OpCount>& counts);

// The weight-cast cache of the calling thread, since its last reset_cast_cache_stats().
struct CastCacheStats {
  std::int64_t casts = 0;           // weights cast and stored (cache misses)
  std::int64_t hits = 0;            // weight casts served from the cache
  std::int64_t uncached_casts = 0;  // casts of everything else (activations, non-leaf tensors)
};
[[nodiscard]] CastCacheStats cast_cache_stats();
void reset_cast_cache_stats();

}  // namespace ampbench::amp
