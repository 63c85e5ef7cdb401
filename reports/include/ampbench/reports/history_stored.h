// What `history add` and `history import` stored, as typed values: the history builds them
// (history/history_stored.h) and the renderer here writes the status lines the commands print.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ampbench/reports/history_show.h"
#include "ampbench/reports/testbed.h"

namespace ampbench::reports {

// A change point a new run revealed, in the words `history show` uses for it.
struct RevealedChangePoint {
  std::string cell;
  std::string figure;  // "step_time_per_probe", ...
  SeriesUnit unit = SeriesUnit::kPlain;
  bool relative = true;  // the magnitude is a ratio - 1, not a difference
  double magnitude = 0.0;
  double before = 0.0;
  double after = 0.0;
  double p_value = 1.0;
  std::int64_t run_id = 0;  // the first run after the change
  std::optional<MachineAttribution> attribution;
};

// One report given to `history add`.
struct StoredReport {
  std::string report;  // the path as given
  bool duplicate = false;
  std::int64_t run_id = 0;  // the new run, or the one stored before for a duplicate
  std::string testbed;
  std::size_t cells = 0;
  std::vector<FactDifference> differing_facts;  // filed by name under a testbed of other facts
  std::vector<RevealedChangePoint> change_points;
};

// One file given to `history import`.
struct ImportedFile {
  std::string file;
  std::size_t added = 0;
  std::size_t already_stored = 0;
  // Per added run filed by name under a stored testbed of other facts: the testbed and how it differs.
  std::vector<std::pair<std::string, std::vector<FactDifference>>> filed_under_other_facts;
};

// "report.json: run 7 of testbed cpu-..., 9 cells", then a line per note and per change point.
[[nodiscard]] std::string render_stored_reports_text(const std::vector<StoredReport>& stored);
// "runs.jsonl: 12 runs added, 3 already stored", then one line per distinct other-facts note.
[[nodiscard]] std::string render_imported_text(const ImportedFile& imported);

}  // namespace ampbench::reports
