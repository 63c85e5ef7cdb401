#include "ampbench/reports/cell_status.h"

#include <ostream>

namespace ampbench::reports {

std::ostream& operator<<(std::ostream& out, CellStatus status) { return out << to_string(status); }

}  // namespace ampbench::reports
