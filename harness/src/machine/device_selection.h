// The device a cell runs on, with its index spelled out. LibTorch accepts a bare "cuda" and means
// the current CUDA device, but what reads per-device state (the caching allocator's statistics,
// CUPTI's chip lookup and context) needs "cuda:N"; normalise once, where run settings are checked.
#pragma once

#include <c10/core/Device.h>

namespace ampbench::harness {

// `device` with an index: a CUDA device without one becomes cuda:`current_cuda_index` (what
// LibTorch would use); any other device comes back unchanged. Throws std::invalid_argument when a
// bare CUDA device meets a negative current index.
[[nodiscard]] c10::Device with_explicit_index(const c10::Device& device, c10::DeviceIndex current_cuda_index);

// with_explicit_index with LibTorch's current CUDA device; asks CUDA only for a bare "cuda", and
// throws std::invalid_argument when there is then no GPU (or no CUDA in this build).
[[nodiscard]] c10::Device resolve_device(const c10::Device& device);

}  // namespace ampbench::harness
