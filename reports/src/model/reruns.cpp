// Which reruns touched a cell (report.h reruns_of).
#include "ampbench/reports/report.h"

namespace ampbench::reports {

std::vector<const WorkerRerun*> reruns_of(const Report& report, const CellResult& cell) {
  std::vector<const WorkerRerun*> found;
  for (const auto& rerun : report.reruns) {
    if (rerun.workload == cell.workload && rerun.ranks == cell.ranks) found.push_back(&rerun);
  }
  return found;
}

}  // namespace ampbench::reports
