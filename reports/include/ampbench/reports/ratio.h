// A ratio of two figures with its 95% interval: the speedups and memory ratios of report.h and the
// GEMM speeds of environment.h, which cannot include report.h (report.h includes it).
#pragma once

#include <nlohmann/json_fwd.hpp>

namespace ampbench::reports {

// E.g. FP32 step time / AMP step time; each producer says how its interval was made (a bootstrap,
// order statistics of per-round ratios).
struct Ratio {
  double value = 0.0;
  double ci_low = 0.0;
  double ci_high = 0.0;
};

// As {"value", "ci_low", "ci_high"}, a figure that is not finite as null (report_json.h's rules).
void to_json(nlohmann::json& out, const Ratio& value);
void from_json(const nlohmann::json& in, Ratio& value);

}  // namespace ampbench::reports
