// The status lines of `history add` and `history import` (history_stored.h).
#include <map>

#include "ampbench/reports/counted.h"
#include "ampbench/reports/history_stored.h"

namespace ampbench::reports {

std::string render_stored_reports_text(const std::vector<StoredReport>& stored) {
  std::string out;
  for (const auto& run : stored) {
    if (run.duplicate) {
      out += run.report + ": already stored as run " + std::to_string(run.run_id) + "; not added again\n";
      continue;
    }
    out += run.report + ": run " + std::to_string(run.run_id) + " of testbed " + run.testbed + ", " +
           std::to_string(run.cells) + " cells\n";
    if (!run.differing_facts.empty()) {
      out += "  " + other_facts_note(run.testbed, run.differing_facts) +
             "; its runs and this one are compared all the same\n";
    }
    for (const auto& change : run.change_points) {
      out +=
          "  change point: " + change.cell + " " + change.figure + " " +
          describe_change(change.unit, change.relative, change.magnitude, change.before, change.after, change.p_value) +
          " from run " + std::to_string(change.run_id) +
          (change.attribution ? "; " + describe_attribution(*change.attribution) : "") + "\n";
    }
  }
  return out;
}

std::string render_imported_text(const ImportedFile& imported) {
  // Runs filed under the same testbed with the same differences share one line.
  std::map<std::string, std::size_t> notes;
  for (const auto& [testbed, differences] : imported.filed_under_other_facts) {
    ++notes[other_facts_note(testbed, differences)];
  }
  std::string out =
      imported.file + ": " + counted(imported.added, "run", "runs") + " added" +
      (imported.already_stored > 0 ? ", " + std::to_string(imported.already_stored) + " already stored" : "") + "\n";
  for (const auto& [note, count] : notes) {
    out += "  " + note + "; " + counted(count, "run", "runs") + " of the file filed under it all the same\n";
  }
  return out;
}

}  // namespace ampbench::reports
