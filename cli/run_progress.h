// `ampbench run`'s progress on stderr, from the harness's structured events.
#pragma once

#include "ampbench/harness/run.h"

namespace ampbench::cli {

// On a terminal a progress line overwrites the previous one; in a CI log only the GEMM peak and
// finished cells show.
[[nodiscard]] harness::RunObserver stderr_progress(bool terminal);

}  // namespace ampbench::cli
