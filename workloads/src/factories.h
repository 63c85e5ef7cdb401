// Private: one factory per built-in workload, each defined in its own file; registry.cpp registers
// them through the same registration as any user workload.
#pragma once

#include <ampbench/amp/fused_optimizers.h>

#include <memory>
#include <vector>

#include "ampbench/workloads/registry.h"

namespace ampbench::workloads::detail {

[[nodiscard]] std::unique_ptr<Workload> make_simple_net(const WorkloadOptions& options);
[[nodiscard]] std::unique_ptr<Workload> make_simple_cnn(const WorkloadOptions& options);
[[nodiscard]] std::unique_ptr<Workload> make_transformer_block(const WorkloadOptions& options);

// Their memory estimates (registry.h), from the sizes alone.
[[nodiscard]] MemoryEstimate estimate_simple_net(const WorkloadOptions& options);
[[nodiscard]] MemoryEstimate estimate_simple_cnn(const WorkloadOptions& options);
[[nodiscard]] MemoryEstimate estimate_transformer_block(const WorkloadOptions& options);

// The built-in workloads' registrations, in `ampbench list` order.
[[nodiscard]] std::vector<WorkloadRegistration> builtin_workloads();

// LibTorch's optimizer, or with options.capturable_optimizer ampbench::amp's fused one of the same
// algorithm and options (what a CUDA graph can capture).
template <typename Fused, typename Plain, typename Options>
[[nodiscard]] std::unique_ptr<torch::optim::Optimizer> recipe_optimizer(const WorkloadOptions& options,
                                                                        std::vector<torch::Tensor> parameters,
                                                                        const Options& settings) {
  if (options.capturable_optimizer) return std::make_unique<Fused>(std::move(parameters), settings);
  return std::make_unique<Plain>(std::move(parameters), settings);
}

// The preset's batch size unless the options override it; rejects non-positive sizes.
[[nodiscard]] std::int64_t batch_size(const WorkloadOptions& options, std::int64_t preset_batch);

}  // namespace ampbench::workloads::detail
