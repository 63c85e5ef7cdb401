#include "ampbench/reports/measurement_status.h"

#include <ostream>

#include "ampbench/reports/enum_names.h"

namespace ampbench::reports {

std::string_view to_string(MeasurementStatus status) {
  switch (status) {
    case MeasurementStatus::kMeasured:
      return "measured";
    case MeasurementStatus::kUnavailable:
      return "unavailable";
  }
  return "unknown";
}

std::optional<MeasurementStatus> measurement_status_named(std::string_view name) {
  return detail::value_named(name, kMeasurementStatuses);
}

std::ostream& operator<<(std::ostream& out, MeasurementStatus status) { return out << to_string(status); }

}  // namespace ampbench::reports
