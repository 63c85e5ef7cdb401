// The history's export format, "ampbench.history-run/1": one JSON object per run and line, oldest
// first; what `history export` writes and `history import` reads back (for projects that keep their
// history in a git branch, or move it between SQLite and PostgreSQL). Read strictly and whole before
// any database is opened, so a file with one bad line stores nothing and creates nothing.
#pragma once

#include <string>
#include <vector>

#include "ampbench/history/history_store.h"

namespace ampbench::history {

inline constexpr const char* kExportSchema = "ampbench.history-run/1";

// The runs as the export's lines, one per run, each with its final newline.
[[nodiscard]] std::string exported_lines(const std::vector<StoredRun>& runs);

// Every run of an exported file, in order (blank lines skipped). Throws HistoryError naming the line
// and the field, as "runs.jsonl line 3: cells[1].figures.speedup: expected 4 values, got 3": a value
// of the wrong type, a field missing or not known, a testbed whose fingerprint is not its facts'.
[[nodiscard]] std::vector<StoredRun> read_exported_runs(const std::string& text, const std::string& source_name);

}  // namespace ampbench::history
