// Stops a build without the CUDA toolkit at the first CUPTI header with a message that says why,
// instead of a missing <cupti_result.h>.
#pragma once

#ifndef AMPBENCH_WITH_CUDA
#error "ampbench's CUPTI headers need the CUDA toolkit: link ampbench_cupti, which exists only when AMPBENCH_WITH_CUDA"
#endif
