#include "database.h"

#include "postgres_database.h"
#include "sqlite_database.h"

namespace ampbench::history::detail {

bool is_postgres_url(const std::string& location) {
  return location.rfind("postgresql://", 0) == 0 || location.rfind("postgres://", 0) == 0;
}

std::unique_ptr<Database> open_database(const std::string& location, OpenMode mode) {
  return is_postgres_url(location) ? open_postgres(location, mode) : open_sqlite(location, mode);
}

}  // namespace ampbench::history::detail
