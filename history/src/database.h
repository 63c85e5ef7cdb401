// The history store's view of a database: prepared statements with bound parameters, a write
// transaction that queues behind another writer, and the table names (to recognise a database that
// is not ampbench's). Two backends: an SQLite file (sqlite_database.cpp) and a PostgreSQL server
// reached through libpq (postgres_database.cpp). The store writes one set of queries for both
// (parameters spelled ?1, ?2...); only the schema's DDL is spelled per dialect. Every failure is a
// HistoryError of one line naming the database (a PostgreSQL one by its host, never its password).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

namespace ampbench::history::detail {

using SqlValue = std::variant<std::nullptr_t, std::int64_t, double, std::string>;

enum class Dialect { kSqlite, kPostgres };
enum class OpenMode { kReadOnly, kCreate };

// One prepared statement of a backend; see Statement.
class Cursor {
 public:
  virtual ~Cursor() = default;
  virtual void bind(int index, const SqlValue& value) = 0;  // 1-based
  virtual bool step() = 0;                                  // true: a row is ready
  virtual void reset() = 0;                                 // forget the rows and the parameters
  [[nodiscard]] virtual std::int64_t integer(int column) const = 0;
  [[nodiscard]] virtual double real(int column) const = 0;
  [[nodiscard]] virtual std::string text(int column) const = 0;
};

class Database {
 public:
  virtual ~Database() = default;
  [[nodiscard]] virtual Dialect dialect() const = 0;
  // What an error names: the file, or postgresql://host:port/database.
  [[nodiscard]] virtual const std::string& name() const = 0;
  [[nodiscard]] virtual std::unique_ptr<Cursor> prepare(const char* sql) = 0;
  virtual void execute(const std::string& sql) = 0;  // statements without results, ';'-separated
  // The id given to the row the last INSERT into a table with an id column made.
  [[nodiscard]] virtual std::int64_t last_insert_id() = 0;
  // Begins a transaction holding the store's write lock, so two writers queue (for up to
  // kBusyTimeoutMs on SQLite) instead of interleaving their change-point searches.
  virtual void begin_write() = 0;
  virtual void commit() = 0;
  virtual void rollback() noexcept = 0;
  // The tables of the database (PostgreSQL: of its current schema).
  [[nodiscard]] virtual std::vector<std::string> table_names() = 0;
};

// "(waited 10 s)": how long a writer queued behind another before giving up (kBusyTimeoutMs), for
// both backends' lock errors.
[[nodiscard]] std::string lock_wait_text();

// True for what names a PostgreSQL server ("postgresql://..." or "postgres://...").
[[nodiscard]] bool is_postgres_url(const std::string& location);

// Opens either backend; kReadOnly changes nothing in it, kCreate makes an SQLite file when absent
// (a PostgreSQL database must exist: the store makes its tables, not the database).
[[nodiscard]] std::unique_ptr<Database> open_database(const std::string& location, OpenMode mode);

// A prepared statement used as a value: Statement(db, sql).bind(1, x).step().
class Statement {
 public:
  Statement(Database& database, const char* sql) : cursor_(database.prepare(sql)) {}
  Statement& bind(int index, const SqlValue& value) {
    cursor_->bind(index, value);
    return *this;
  }
  bool step() { return cursor_->step(); }
  void reset() { cursor_->reset(); }
  [[nodiscard]] std::int64_t integer(int column) const { return cursor_->integer(column); }
  [[nodiscard]] double real(int column) const { return cursor_->real(column); }
  [[nodiscard]] std::string text(int column) const { return cursor_->text(column); }

 private:
  std::unique_ptr<Cursor> cursor_;
};

// begin_write() on construction; rollback unless commit() ran: a failed add stores nothing.
class WriteTransaction {
 public:
  explicit WriteTransaction(Database& database) : database_(database) { database_.begin_write(); }
  WriteTransaction(const WriteTransaction&) = delete;
  WriteTransaction& operator=(const WriteTransaction&) = delete;
  ~WriteTransaction() {
    if (open_) database_.rollback();
  }
  void commit() {
    database_.commit();
    open_ = false;
  }

 private:
  Database& database_;
  bool open_ = true;
};

}  // namespace ampbench::history::detail
