#include "explain/explain_page_faults.h"

#include "ampbench/reports/compare.h"
#include "render/format.h"
#include "render/summary_rows.h"

namespace ampbench::reports::detail {
namespace {

// What to try instead: the policies that keep freed memory in the process, other than this one.
std::string keeping_policies(const std::string& policy) {
  std::string text;
  for (const char* other : {"glibc-fixed", "tcmalloc"}) {
    if (policy != other) text += (text.empty() ? "" : " or ") + std::string("--allocator ") + other;
  }
  return text;
}

}  // namespace

void page_fault_findings(const Report& report, std::vector<Finding>& out) {
  const auto& allocator = report.environment.allocator;
  if (!allocator || !(allocator->page_fault_s > 0.0)) return;
  for (const auto& cell : report.cells) {
    if (cell.status != CellStatus::kOk || !cell.page_faults) continue;
    const double faults = mean_per_step(cell.page_faults->minor);
    const double step_s = timed_step_seconds(cell);
    const double fault_s = faults * allocator->page_fault_s;
    if (!(step_s > 0.0) || fault_s / step_s < kPageFaultShareWorthSaying) continue;
    const double share = fault_s / step_s;
    const std::string sentence =
        format_count(faults) + " minor page faults per timed step under --allocator " + allocator->policy + ": at " +
        format_duration(allocator->page_fault_s) + " per fault (measured by this run) about " + format_share(share) +
        " of the " + format_duration(step_s) +
        " step goes to paging memory in that the allocator had handed back to the kernel. A policy that keeps freed "
        "memory (" +
        keeping_policies(allocator->policy) + ") would make the step about " + format_share(share) +
        " shorter (an estimate from the fault cost; rerun to measure it).";
    out.push_back({"page-faults",
                   key_of(cell).label(),
                   sentence,
                   {{"minor_faults_per_step", faults},
                    {"page_fault_s", allocator->page_fault_s},
                    {"fault_share_of_step", share},
                    {"step_time_s", step_s}}});
  }
}

}  // namespace ampbench::reports::detail
