// Registration of ampbench's autocast kernels on the AutocastCPU / AutocastCUDA dispatch keys.
// Private to ampbench::amp.
#pragma once

#include "ampbench/amp/op_policy.h"
#include "op_registry.h"

namespace ampbench::amp::detail {

// Registers the kernels of a device type's active entries unless they are registered already.
// Cheap after the first call (one atomic load).
void install_autocast_kernels(c10::DeviceType device_type);

// Registers one more entry's kernel if its device type's kernels are installed (set_op_policy on
// an op outside the default table).
void install_added_op(OpEntry& entry);

// Unregisters and registers again a device type's kernels if they are installed, so that the
// registration matches the active entries.
void reinstall_autocast_kernels(c10::DeviceType device_type);

// Throws std::invalid_argument unless `op` names an ATen operator that `policy` can serve.
void check_op_for_policy(std::string_view op, CastPolicy policy);

}  // namespace ampbench::amp::detail
