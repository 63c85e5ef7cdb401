// The history on a PostgreSQL server, for a fleet of runners that share one (libpq). The database
// must exist; the store makes its tables. Writers serialise on a transaction-scoped advisory lock,
// as SQLite's BEGIN IMMEDIATE does, so two runners adding at once queue.
#pragma once

#include <memory>
#include <string>

#include "database.h"

namespace ampbench::history::detail {

// `url`: a libpq connection URI (postgresql://user:password@host:port/database?options). Errors
// name the server as postgresql://host:port/database; the password is never repeated.
[[nodiscard]] std::unique_ptr<Database> open_postgres(const std::string& url, OpenMode mode);

// The URL without the password in its user part or its query, for printing it (libpq reads a
// password from $PGPASSWORD or ~/.pgpass as well).
[[nodiscard]] std::string url_without_password(const std::string& url);

}  // namespace ampbench::history::detail
