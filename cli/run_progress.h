// `ampbench run`'s progress on stderr, from the harness's structured events.
#pragma once

#include <string>

#include "ampbench/harness/run.h"

namespace ampbench::cli {

// On a terminal a progress line overwrites the previous one; in a CI log only the GEMM peak and
// finished cells show. `first_line` (the plan's preset choice; may be empty) is printed when the run
// starts measuring, after every refusal, so that bad input stays one line.
[[nodiscard]] harness::RunObserver stderr_progress(bool terminal, std::string first_line);

}  // namespace ampbench::cli
