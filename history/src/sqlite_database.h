// The history in an SQLite file: WAL (readers never block the writer), BEGIN IMMEDIATE for writes
// (two writers queue for up to kBusyTimeoutMs instead of deadlocking).
#pragma once

#include <memory>
#include <string>

#include "database.h"

namespace ampbench::history::detail {

// kReadOnly refuses a file that does not exist; kCreate makes it.
[[nodiscard]] std::unique_ptr<Database> open_sqlite(const std::string& path, OpenMode mode);

}  // namespace ampbench::history::detail
