#include "ampbench/reports/graph_execution.h"

#include <ostream>

#include "ampbench/reports/enum_names.h"
#include "ampbench/reports/report.h"

namespace ampbench::reports {

std::string_view to_string(GraphExecution execution) {
  switch (execution) {
    case GraphExecution::kOff:
      return "off";
    case GraphExecution::kOn:
      return "on";
    case GraphExecution::kBoth:
      return "both";
  }
  return "unknown";
}

std::optional<GraphExecution> graph_execution_named(std::string_view name) {
  return detail::value_named(name, kGraphExecutions);
}

std::string graph_execution_names() { return detail::alternatives(kGraphExecutions); }

std::ostream& operator<<(std::ostream& out, GraphExecution execution) { return out << to_string(execution); }

bool is_graphed_mode(std::string_view mode) {
  return mode.size() > kGraphedSuffix.size() && mode.substr(mode.size() - kGraphedSuffix.size()) == kGraphedSuffix;
}

std::string eager_mode_of(std::string_view mode) {
  return std::string(is_graphed_mode(mode) ? mode.substr(0, mode.size() - kGraphedSuffix.size()) : mode);
}

std::string graphed_mode_of(std::string_view mode) { return eager_mode_of(mode) + std::string(kGraphedSuffix); }

std::string reference_mode_for(std::string_view mode) {
  return is_graphed_mode(mode) ? graphed_mode_of(kReferenceMode) : std::string(kReferenceMode);
}

}  // namespace ampbench::reports
