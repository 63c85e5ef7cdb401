// A thin RAII layer over SQLite's C API: a connection, prepared statements with bound parameters,
// and transactions. Every failure becomes a HistoryError of one line naming the database file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

struct sqlite3;
struct sqlite3_stmt;

namespace ampbench::history::detail {

using SqlValue = std::variant<std::nullptr_t, std::int64_t, double, std::string>;

class SqliteConnection;

// One prepared statement; step() it, read columns, reset() to run it again with new parameters.
class Statement {
 public:
  Statement(SqliteConnection& connection, const char* sql);
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement();

  Statement& bind(int index, const SqlValue& value);  // 1-based, as SQLite's
  bool step();                                        // true: a row is ready
  void reset();
  [[nodiscard]] std::int64_t integer(int column) const;
  [[nodiscard]] double real(int column) const;
  [[nodiscard]] std::string text(int column) const;
  [[nodiscard]] bool is_null(int column) const;

 private:
  SqliteConnection& connection_;
  sqlite3_stmt* statement_ = nullptr;
};

enum class OpenMode { kReadOnly, kCreate };

class SqliteConnection {
 public:
  // kReadOnly refuses a file that does not exist; kCreate makes it. Both wait up to busy_timeout_ms
  // for another process's write lock before failing with "locked".
  SqliteConnection(const std::string& path, OpenMode mode, int busy_timeout_ms);
  SqliteConnection(const SqliteConnection&) = delete;
  SqliteConnection& operator=(const SqliteConnection&) = delete;
  ~SqliteConnection();

  void execute(const std::string& sql);  // statements without results, ';'-separated
  [[nodiscard]] std::int64_t last_insert_id() const;
  [[nodiscard]] const std::string& path() const { return path_; }
  [[noreturn]] void fail(const std::string& doing) const;  // throws HistoryError with SQLite's message
  [[nodiscard]] sqlite3* handle() const { return db_; }

 private:
  std::string path_;
  sqlite3* db_ = nullptr;
};

// BEGIN IMMEDIATE (the write lock taken at once, so two writers queue instead of deadlocking) on
// construction; ROLLBACK unless commit() ran: a failed add stores nothing.
class WriteTransaction {
 public:
  explicit WriteTransaction(SqliteConnection& connection);
  WriteTransaction(const WriteTransaction&) = delete;
  WriteTransaction& operator=(const WriteTransaction&) = delete;
  ~WriteTransaction();
  void commit();

 private:
  SqliteConnection& connection_;
  bool open_ = true;
};

}  // namespace ampbench::history::detail
