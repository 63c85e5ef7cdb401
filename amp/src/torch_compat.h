// Where the LibTorch versions ampbench supports (2.11 to 2.15) differ, in one place. Each entry says
// what differs and how it was established; code elsewhere tests these names, never version numbers.
#pragma once

#include <torch/headeronly/version.h>

#define AMPBENCH_TORCH_AT_LEAST(major, minor) \
  (TORCH_VERSION_MAJOR > (major) || (TORCH_VERSION_MAJOR == (major) && TORCH_VERSION_MINOR >= (minor)))

// LibTorch's native CUDA autocast runs rms_norm in float32 from 2.12 on; 2.11 has no rule for it.
// Checked per release with torch._C._dispatch_has_kernel_for_dispatch_key("aten::rms_norm",
// "AutocastCUDA"): 2.11.0 False, 2.12.0, 2.13.0 and 2.15.0 True.
#define AMPBENCH_NATIVE_CUDA_AUTOCAST_HAS_RMS_NORM AMPBENCH_TORCH_AT_LEAST(2, 12)
