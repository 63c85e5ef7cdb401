// What the numerics pass cost and where it failed, in words that the Markdown and HTML reports
// share (the pass's curves themselves are drawn by the HTML page from the JSON).
#pragma once

#include <string>
#include <vector>

#include "ampbench/reports/report.h"

namespace ampbench::reports::detail {

// "Numerics pass (divergence): 16 steps per mode, simple_net 7.500 s, simple_cnn 11.60 s.": per
// workload, the wall time of its cells' passes and FP32's floor run; empty when no cell has one.
[[nodiscard]] std::string numerics_cost_note(const Report& report);

// The GradScaler cells whose scale backed off before the pass (report.h ScaleCalibration): "...
// simplenet/fp16/cpu started at 32768 after 1 overflowing try; ..."; empty when none did.
[[nodiscard]] std::string scale_calibration_note(const Report& report);

// "simple_cnn/fp16/cpu: ERROR" (summary_rows.h cell_name) for every cell whose numerics pass failed.
[[nodiscard]] std::vector<std::string> numerics_failures(const Report& report);

}  // namespace ampbench::reports::detail
