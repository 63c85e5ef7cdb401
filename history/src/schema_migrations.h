// The history's schema, as migrations: schema_migrations(d)[v] takes a database from schema v to
// v + 1. Both dialects make the same tables, columns and keys; only the types are spelled per
// dialect. Never edit a released migration; add the next, to both.
#pragma once

#include "ampbench/history/history_store.h"
#include "database.h"

namespace ampbench::history::detail {

// kSchemaVersion of them.
[[nodiscard]] const char* const* schema_migrations(Dialect dialect);

}  // namespace ampbench::history::detail
