// What `history add` and `history import` stored, as the documents reports/history_stored.h
// renders: each new change point in show's terms, with the machine's part in it.
#pragma once

#include <string>
#include <vector>

#include "ampbench/history/history_store.h"
#include "ampbench/reports/history_stored.h"

namespace ampbench::history {

// `added` as store.add returned it for the report at `report_path`.
[[nodiscard]] reports::StoredReport stored_report(const HistoryStore& store, const std::string& report_path,
                                                  const AddedRun& added);

// `added` as store.import_runs returned it for the `runs_in_file` runs of `file`.
[[nodiscard]] reports::ImportedFile imported_file(const std::string& file, std::size_t runs_in_file,
                                                  const std::vector<AddedRun>& added);

}  // namespace ampbench::history
