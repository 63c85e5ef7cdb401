// The names of report.h's FlopSource, for report.json.
#include "ampbench/reports/report.h"

namespace ampbench::reports {

std::string_view to_string(FlopSource source) {
  switch (source) {
    case FlopSource::kWorkload:
      return "workload";
    case FlopSource::kCounted:
      return "counted";
  }
  return "unknown";
}

}  // namespace ampbench::reports
