#include "database.h"

#include "ampbench/history/history_store.h"
#include "postgres_database.h"
#include "sqlite_database.h"

namespace ampbench::history::detail {

std::string lock_wait_text() { return "(waited " + std::to_string(kBusyTimeoutMs / 1000) + " s)"; }

bool is_postgres_url(const std::string& location) {
  return location.rfind("postgresql://", 0) == 0 || location.rfind("postgres://", 0) == 0;
}

std::unique_ptr<Database> open_database(const std::string& location, OpenMode mode) {
  return is_postgres_url(location) ? open_postgres(location, mode) : open_sqlite(location, mode);
}

}  // namespace ampbench::history::detail
