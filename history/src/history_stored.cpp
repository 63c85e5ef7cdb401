#include "ampbench/history/history_stored.h"

#include "ampbench/history/history_show.h"

namespace ampbench::history {

reports::StoredReport stored_report(const HistoryStore& store, const std::string& report_path, const AddedRun& added) {
  reports::StoredReport out{
      report_path, added.duplicate, added.run_id, added.testbed.name, added.cells, added.differing_facts, {}};
  if (added.duplicate) return out;
  for (const auto& change : added.change_points) {
    const auto& found = change.change;
    out.change_points.push_back({change.cell, std::string(to_string(change.figure)), unit_of(change.figure),
                                 change_scale(change.figure) == ChangeScale::kRelative, found.magnitude, found.before,
                                 found.after, found.p_value, change.run_id,
                                 attribution_of(store, added.testbed.name, change)});
  }
  return out;
}

reports::ImportedFile imported_file(const std::string& file, std::size_t runs_in_file,
                                    const std::vector<AddedRun>& added) {
  reports::ImportedFile out{file, 0, 0, {}};
  for (const auto& run : added) {
    if (run.duplicate) continue;
    ++out.added;
    if (!run.differing_facts.empty()) out.filed_under_other_facts.emplace_back(run.testbed.name, run.differing_facts);
  }
  out.already_stored = runs_in_file - out.added;
  return out;
}

}  // namespace ampbench::history
