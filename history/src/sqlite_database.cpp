#include "sqlite_database.h"

#include <sqlite3.h>

#include <filesystem>

#include "ampbench/history/history_store.h"

namespace ampbench::history::detail {
namespace {

class SqliteDatabase final : public Database {
 public:
  SqliteDatabase(const std::string& path, OpenMode mode) : path_(path) {
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
    sqlite3_busy_timeout(db_, kBusyTimeoutMs);
  }
  SqliteDatabase(const SqliteDatabase&) = delete;
  SqliteDatabase& operator=(const SqliteDatabase&) = delete;
  ~SqliteDatabase() override { sqlite3_close(db_); }

  [[nodiscard]] Dialect dialect() const override { return Dialect::kSqlite; }
  [[nodiscard]] const std::string& name() const override { return path_; }
  [[nodiscard]] std::unique_ptr<Cursor> prepare(const char* sql) override;
  void execute(const std::string& sql) override {
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) fail("cannot use it");
  }
  [[nodiscard]] std::int64_t last_insert_id() override { return sqlite3_last_insert_rowid(db_); }
  void begin_write() override { execute("BEGIN IMMEDIATE"); }
  void commit() override { execute("COMMIT"); }
  void rollback() noexcept override { sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr); }
  [[nodiscard]] std::vector<std::string> table_names() override;

  [[noreturn]] void fail(const std::string& doing) const {
    const int code = sqlite3_extended_errcode(db_);
    std::string why = sqlite3_errmsg(db_);
    if ((code & 0xff) == SQLITE_BUSY || (code & 0xff) == SQLITE_LOCKED) {
      why = "it is locked by another process " + lock_wait_text() + ": " + why;
    } else if ((code & 0xff) == SQLITE_NOTADB) {
      why = "not an SQLite database";
    }
    throw HistoryError(path_ + ": " + doing + ": " + why);
  }
  [[nodiscard]] sqlite3* handle() const { return db_; }

 private:
  std::string path_;
  sqlite3* db_ = nullptr;
};

class SqliteCursor final : public Cursor {
 public:
  SqliteCursor(SqliteDatabase& database, const char* sql) : database_(database) {
    if (sqlite3_prepare_v2(database.handle(), sql, -1, &statement_, nullptr) != SQLITE_OK) {
      database.fail("cannot read it");
    }
  }
  SqliteCursor(const SqliteCursor&) = delete;
  SqliteCursor& operator=(const SqliteCursor&) = delete;
  ~SqliteCursor() override { sqlite3_finalize(statement_); }

  void bind(int index, const SqlValue& value) override {
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
    if (rc != SQLITE_OK) database_.fail("cannot bind a value");
  }
  bool step() override {
    const int rc = sqlite3_step(statement_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    database_.fail("cannot use it");
  }
  void reset() override {
    sqlite3_reset(statement_);
    sqlite3_clear_bindings(statement_);
  }
  [[nodiscard]] std::int64_t integer(int column) const override { return sqlite3_column_int64(statement_, column); }
  [[nodiscard]] double real(int column) const override { return sqlite3_column_double(statement_, column); }
  [[nodiscard]] std::string text(int column) const override {
    const auto* bytes = sqlite3_column_text(statement_, column);
    if (bytes == nullptr) return {};
    return {reinterpret_cast<const char*>(bytes), static_cast<std::size_t>(sqlite3_column_bytes(statement_, column))};
  }

 private:
  SqliteDatabase& database_;
  sqlite3_stmt* statement_ = nullptr;
};

std::unique_ptr<Cursor> SqliteDatabase::prepare(const char* sql) { return std::make_unique<SqliteCursor>(*this, sql); }

std::vector<std::string> SqliteDatabase::table_names() {
  SqliteCursor tables(*this, "SELECT name FROM sqlite_master WHERE type = 'table'");
  std::vector<std::string> names;
  while (tables.step()) names.push_back(tables.text(0));
  return names;
}

}  // namespace

std::unique_ptr<Database> open_sqlite(const std::string& path, OpenMode mode) {
  return std::make_unique<SqliteDatabase>(path, mode);
}

}  // namespace ampbench::history::detail
