// Unboxed autocast kernels for the hot ops. Private to ampbench::amp.
#pragma once

#include "op_registry.h"

#include <torch/library.h>

#include <optional>

namespace ampbench::amp::detail {

// The unboxed kernel for a hot op's entry (addmm, mm, bmm, baddbmm, matmul, linear, conv1d/2d/3d),
// or nullopt for every other op, which gets the boxed AutocastKernel.
[[nodiscard]] std::optional<torch::CppFunction> make_typed_kernel(OpEntry& entry);

}  // namespace ampbench::amp::detail
