// Private: one factory per workload, each defined in its own file; registry.cpp maps names to them.
#pragma once

#include <memory>

#include "ampbench/workloads/workload.h"

namespace ampbench::workloads::detail {

[[nodiscard]] std::unique_ptr<Workload> make_simple_net(const WorkloadOptions& options);
[[nodiscard]] std::unique_ptr<Workload> make_simple_cnn(const WorkloadOptions& options);
[[nodiscard]] std::unique_ptr<Workload> make_transformer_block(const WorkloadOptions& options);

// The preset's batch size unless the options override it; rejects non-positive sizes.
[[nodiscard]] std::int64_t batch_size(const WorkloadOptions& options, std::int64_t preset_batch);

}  // namespace ampbench::workloads::detail
