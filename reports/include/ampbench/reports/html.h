// The report as one self-contained HTML page that opens offline: the summary table, then charts of
// step time (with CI whiskers), speedup vs FP32, peak memory, loss curves, the GradScaler scale
// (skipped steps marked) and tensor-core utilisation where measured. Styles, script and data are
// inline; nothing is fetched.
#pragma once

#include <string>

#include "ampbench/reports/report.h"

namespace ampbench::reports {

[[nodiscard]] std::string render_html(const Report& report);

}  // namespace ampbench::reports
