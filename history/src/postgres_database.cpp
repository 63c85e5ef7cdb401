#include "postgres_database.h"

#include <libpq-fe.h>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <optional>

#include "ampbench/history/history_store.h"

namespace ampbench::history::detail {
namespace {

using Result = std::unique_ptr<PGresult, decltype(&PQclear)>;

// A server's message is several lines (the error, DETAIL, HINT); a HistoryError is one.
std::string one_line(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  for (std::size_t at = text.find('\n'); at != std::string::npos; at = text.find('\n', at)) text.replace(at, 1, "; ");
  return text;
}

// postgresql://host:port/database from the URL, without its user's password; the URL itself when
// libpq cannot read it (then the error says why).
std::string server_name(const std::string& url) {
  char* error = nullptr;
  PQconninfoOption* options = PQconninfoParse(url.c_str(), &error);
  if (options == nullptr) {
    const std::string why = error != nullptr ? one_line(error) : "out of memory";
    PQfreemem(error);
    throw HistoryError("--db: not a PostgreSQL connection URL: " + why);
  }
  std::string host;
  std::string port;
  std::string database;
  for (auto* option = options; option->keyword != nullptr; ++option) {
    const std::string keyword = option->keyword;
    const std::string value = option->val != nullptr ? option->val : "";
    if (keyword == "host" || (keyword == "hostaddr" && host.empty())) host = value;
    if (keyword == "port") port = value;
    if (keyword == "dbname") database = value;
  }
  PQconninfoFree(options);
  return "postgresql://" + (host.empty() ? std::string("localhost") : host) + (port.empty() ? "" : ":" + port) + "/" +
         database;
}

// The store's queries number their parameters ?1, ?2 (SQLite's spelling); PostgreSQL's is $1, $2.
std::string numbered_parameters(const char* sql) {
  std::string out(sql);
  for (std::size_t i = 0; i + 1 < out.size(); ++i) {
    if (out[i] == '?' && out[i + 1] >= '0' && out[i + 1] <= '9') out[i] = '$';
  }
  return out;
}

// Parameters travel as text; a double as the shortest text that reads back to the same bits.
std::optional<std::string> parameter_text(const SqlValue& value) {
  if (std::holds_alternative<std::nullptr_t>(value)) return std::nullopt;
  if (const auto* integer = std::get_if<std::int64_t>(&value)) return std::to_string(*integer);
  if (const auto* real = std::get_if<double>(&value)) {
    if (std::isnan(*real)) return "NaN";
    if (std::isinf(*real)) return *real > 0 ? "Infinity" : "-Infinity";
    char text[32];
    const auto end = std::to_chars(text, text + sizeof text, *real).ptr;
    return std::string(text, end);
  }
  return std::get<std::string>(value);
}

// The key of the transaction-scoped advisory lock every writer takes ("ampb").
constexpr long long kWriteLockKey = 0x616d7062;

class PostgresDatabase final : public Database {
 public:
  PostgresDatabase(const std::string& url, OpenMode mode) : name_(server_name(url)) {
    // The URL's own settings win over these defaults (libpq: later keywords override, and the
    // expanded dbname is last). A server that never answers fails in 10 s, not never.
    const char* keywords[] = {"connect_timeout", "client_encoding", "fallback_application_name", "dbname", nullptr};
    const char* values[] = {"10", "UTF8", "ampbench", url.c_str(), nullptr};
    connection_ = PQconnectdbParams(keywords, values, 1);
    if (connection_ == nullptr) throw HistoryError(name_ + ": cannot connect: out of memory");
    if (PQstatus(connection_) != CONNECTION_OK) {
      const std::string why = one_line(PQerrorMessage(connection_));
      PQfinish(connection_);
      connection_ = nullptr;
      throw HistoryError(name_ + ": cannot connect: " + why);
    }
    // The server's NOTICEs (e.g. "relation exists, skipping") are not the user's business.
    PQsetNoticeProcessor(
        connection_, [](void*, const char*) {}, nullptr);
    if (mode == OpenMode::kReadOnly) execute("SET default_transaction_read_only = on");
  }
  PostgresDatabase(const PostgresDatabase&) = delete;
  PostgresDatabase& operator=(const PostgresDatabase&) = delete;
  ~PostgresDatabase() override { PQfinish(connection_); }

  [[nodiscard]] Dialect dialect() const override { return Dialect::kPostgres; }
  [[nodiscard]] const std::string& name() const override { return name_; }
  [[nodiscard]] std::unique_ptr<Cursor> prepare(const char* sql) override;
  void execute(const std::string& sql) override { (void)checked(PQexec(connection_, sql.c_str())); }
  [[nodiscard]] std::int64_t last_insert_id() override {
    const auto result = checked(PQexec(connection_, "SELECT lastval()"));
    return std::strtoll(PQgetvalue(result.get(), 0, 0), nullptr, 10);
  }
  void begin_write() override {
    execute("BEGIN");
    try {
      execute("SET LOCAL lock_timeout = '" + std::to_string(kBusyTimeoutMs) + "ms'; SELECT pg_advisory_xact_lock(" +
              std::to_string(kWriteLockKey) + ")");
    } catch (const HistoryError&) {
      rollback();  // no WriteTransaction holds it yet: the connection must not stay in an aborted one
      throw;
    }
  }
  void commit() override { execute("COMMIT"); }
  void rollback() noexcept override { PQclear(PQexec(connection_, "ROLLBACK")); }
  [[nodiscard]] std::vector<std::string> table_names() override {
    const auto result = checked(
        PQexec(connection_, "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"));
    std::vector<std::string> names;
    for (int row = 0; row < PQntuples(result.get()); ++row) names.emplace_back(PQgetvalue(result.get(), row, 0));
    return names;
  }

  // The result, or a HistoryError naming the server with its message.
  Result checked(PGresult* raw) const {
    Result result(raw, &PQclear);
    const auto status = result != nullptr ? PQresultStatus(result.get()) : PGRES_FATAL_ERROR;
    if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return result;
    std::string why = one_line(result != nullptr ? PQresultErrorMessage(result.get()) : PQerrorMessage(connection_));
    const char* state = result != nullptr ? PQresultErrorField(result.get(), PG_DIAG_SQLSTATE) : nullptr;
    if (state != nullptr && std::string(state) == "55P03") {  // lock_not_available
      why = "another runner is adding to it " + lock_wait_text() + ": " + why;
    }
    throw HistoryError(name_ + ": " + why);
  }
  [[nodiscard]] PGconn* handle() const { return connection_; }

 private:
  std::string name_;
  PGconn* connection_ = nullptr;
};

// Runs the statement on the first step() with the parameters bound so far; the rows are then read
// from the result.
class PostgresCursor final : public Cursor {
 public:
  PostgresCursor(PostgresDatabase& database, const char* sql) : database_(database), sql_(numbered_parameters(sql)) {}

  void bind(int index, const SqlValue& value) override {
    if (static_cast<int>(parameters_.size()) < index) parameters_.resize(static_cast<std::size_t>(index));
    parameters_[static_cast<std::size_t>(index - 1)] = parameter_text(value);
  }
  bool step() override {
    if (result_ == nullptr) {
      std::vector<const char*> values;
      for (const auto& parameter : parameters_) values.push_back(parameter ? parameter->c_str() : nullptr);
      result_ = database_.checked(PQexecParams(database_.handle(), sql_.c_str(), static_cast<int>(values.size()),
                                               nullptr, values.data(), nullptr, nullptr, 0));
      row_ = -1;
    }
    return ++row_ < PQntuples(result_.get());
  }
  void reset() override {
    result_.reset();
    parameters_.clear();
  }
  [[nodiscard]] std::int64_t integer(int column) const override {
    return std::strtoll(PQgetvalue(result_.get(), row_, column), nullptr, 10);
  }
  [[nodiscard]] double real(int column) const override {
    return std::strtod(PQgetvalue(result_.get(), row_, column), nullptr);
  }
  [[nodiscard]] std::string text(int column) const override {
    return {PQgetvalue(result_.get(), row_, column),
            static_cast<std::size_t>(PQgetlength(result_.get(), row_, column))};
  }

 private:
  PostgresDatabase& database_;
  std::string sql_;
  std::vector<std::optional<std::string>> parameters_;
  Result result_{nullptr, &PQclear};
  int row_ = -1;
};

std::unique_ptr<Cursor> PostgresDatabase::prepare(const char* sql) {
  return std::make_unique<PostgresCursor>(*this, sql);
}

}  // namespace

std::string url_without_password(const std::string& url) {
  std::string out = url;
  const auto scheme_end = out.find("://");
  if (scheme_end == std::string::npos) return out;
  const auto authority = scheme_end + 3;
  const auto authority_end = out.find_first_of("/?", authority);
  const auto at = out.rfind('@', authority_end == std::string::npos ? out.size() : authority_end);
  if (at != std::string::npos && at >= authority) {
    const auto colon = out.find(':', authority);
    if (colon < at) out.erase(colon, at - colon);
  }
  // ...?sslmode=require&password=x&connect_timeout=5: the parameter and one of its separators go.
  for (auto query = out.find('?'); query != std::string::npos;) {
    const auto start = out.find("password=", query);
    if (start == std::string::npos || (out[start - 1] != '?' && out[start - 1] != '&')) break;
    const auto end = out.find('&', start);
    if (end != std::string::npos) {
      out.erase(start, end + 1 - start);
    } else {
      out.erase(start - 1);
    }
  }
  return out;
}

std::unique_ptr<Database> open_postgres(const std::string& url, OpenMode mode) {
  return std::make_unique<PostgresDatabase>(url, mode);
}

}  // namespace ampbench::history::detail
