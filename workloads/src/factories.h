// Private: one factory per built-in workload, each defined in its own file; registry.cpp registers
// them through the same registration as any user workload.
#pragma once

#include <memory>

#include "ampbench/workloads/registry.h"

namespace ampbench::workloads::detail {

[[nodiscard]] std::unique_ptr<Workload> make_simple_net(const WorkloadOptions& options);
[[nodiscard]] std::unique_ptr<Workload> make_simple_cnn(const WorkloadOptions& options);
[[nodiscard]] std::unique_ptr<Workload> make_transformer_block(const WorkloadOptions& options);

// The built-in workloads' registrations, in `ampbench list` order.
[[nodiscard]] std::vector<WorkloadRegistration> builtin_workloads();

// The preset's batch size unless the options override it; rejects non-positive sizes.
[[nodiscard]] std::int64_t batch_size(const WorkloadOptions& options, std::int64_t preset_batch);

}  // namespace ampbench::workloads::detail
