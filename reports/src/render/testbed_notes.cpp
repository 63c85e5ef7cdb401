// How a testbed's differing facts read in the history's notes (testbed.h).
#include "ampbench/reports/testbed.h"

namespace ampbench::reports {

std::string describe_differences(const std::vector<FactDifference>& differences) {
  std::string out;
  for (const auto& difference : differences) {
    out += (out.empty() ? "" : "; ") + difference.fact + " " + difference.testbed_value + " there, " +
           difference.run_value + " in this run";
  }
  return out;
}

std::string other_facts_note(const std::string& testbed_name, const std::vector<FactDifference>& differences) {
  return "note: testbed " + testbed_name + " was made from other facts (" + describe_differences(differences) + ")";
}

}  // namespace ampbench::reports
