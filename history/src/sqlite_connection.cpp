#include "sqlite_connection.h"

#include <sqlite3.h>

#include <filesystem>

#include "ampbench/history/history_store.h"

namespace ampbench::history::detail {

Statement::Statement(SqliteConnection& connection, const char* sql) : connection_(connection) {
  if (sqlite3_prepare_v2(connection.handle(), sql, -1, &statement_, nullptr) != SQLITE_OK) {
    connection.fail("cannot read it");
  }
}

Statement::~Statement() { sqlite3_finalize(statement_); }

Statement& Statement::bind(int index, const SqlValue& value) {
  int rc = SQLITE_OK;
  if (std::holds_alternative<std::nullptr_t>(value)) {
    rc = sqlite3_bind_null(statement_, index);
  } else if (const auto* integer = std::get_if<std::int64_t>(&value)) {
    rc = sqlite3_bind_int64(statement_, index, *integer);
  } else if (const auto* real = std::get_if<double>(&value)) {
    rc = sqlite3_bind_double(statement_, index, *real);
  } else {
    const auto& text = std::get<std::string>(value);
    rc = sqlite3_bind_text(statement_, index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
  }
  if (rc != SQLITE_OK) connection_.fail("cannot bind a value");
  return *this;
}

bool Statement::step() {
  const int rc = sqlite3_step(statement_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  connection_.fail("cannot use it");
}

void Statement::reset() {
  sqlite3_reset(statement_);
  sqlite3_clear_bindings(statement_);
}

std::int64_t Statement::integer(int column) const { return sqlite3_column_int64(statement_, column); }
double Statement::real(int column) const { return sqlite3_column_double(statement_, column); }
bool Statement::is_null(int column) const { return sqlite3_column_type(statement_, column) == SQLITE_NULL; }
std::string Statement::text(int column) const {
  const auto* bytes = sqlite3_column_text(statement_, column);
  if (bytes == nullptr) return {};
  return {reinterpret_cast<const char*>(bytes), static_cast<std::size_t>(sqlite3_column_bytes(statement_, column))};
}

SqliteConnection::SqliteConnection(const std::string& path, OpenMode mode, int busy_timeout_ms) : path_(path) {
  if (mode == OpenMode::kReadOnly && !std::filesystem::exists(path)) {
    throw HistoryError(path + ": no such history database");
  }
  // SQLITE_OPEN_NOFOLLOW is not used: a database reached through a link is still the user's file.
  const int flags = mode == OpenMode::kReadOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  if (sqlite3_open_v2(path.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
    const std::string message = db_ != nullptr ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw HistoryError(path + ": cannot open the history database: " + message);
  }
  sqlite3_extended_result_codes(db_, 1);
  sqlite3_busy_timeout(db_, busy_timeout_ms);
}

SqliteConnection::~SqliteConnection() { sqlite3_close(db_); }

void SqliteConnection::execute(const std::string& sql) {
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) fail("cannot use it");
}

std::int64_t SqliteConnection::last_insert_id() const { return sqlite3_last_insert_rowid(db_); }

void SqliteConnection::fail(const std::string& doing) const {
  const int code = sqlite3_extended_errcode(db_);
  std::string why = sqlite3_errmsg(db_);
  if ((code & 0xff) == SQLITE_BUSY || (code & 0xff) == SQLITE_LOCKED) {
    why = "it is locked by another process (waited " + std::to_string(kBusyTimeoutMs / 1000) + " s): " + why;
  } else if ((code & 0xff) == SQLITE_NOTADB) {
    why = "not an SQLite database";
  }
  throw HistoryError(path_ + ": " + doing + ": " + why);
}

WriteTransaction::WriteTransaction(SqliteConnection& connection) : connection_(connection) {
  connection_.execute("BEGIN IMMEDIATE");
}

WriteTransaction::~WriteTransaction() {
  if (open_) sqlite3_exec(connection_.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void WriteTransaction::commit() {
  connection_.execute("COMMIT");
  open_ = false;
}

}  // namespace ampbench::history::detail
