#include "postgres_test_database.h"

#include <libpq-fe.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iomanip>
#include <memory>
#include <sstream>
#include <stdexcept>

namespace ampbench::testing {
namespace {

std::string server_folder() {
  const char* state = std::getenv("AMPBENCH_TEST_POSTGRES_STATE");
  if (state == nullptr) {
    throw std::runtime_error(
        "AMPBENCH_TEST_POSTGRES_STATE is not set: run this test through ctest (its fixture starts "
        "tests/support/postgres-test-server)");
  }
  std::ifstream in(state);
  std::string folder;
  if (!std::getline(in, folder)) throw std::runtime_error(std::string(state) + ": no test server is running");
  return folder;
}

std::vector<std::string> run_sql(const std::string& url, const std::string& sql) {
  std::unique_ptr<PGconn, decltype(&PQfinish)> connection(PQconnectdb(url.c_str()), &PQfinish);
  if (PQstatus(connection.get()) != CONNECTION_OK) {
    throw std::runtime_error(url + ": " + PQerrorMessage(connection.get()));
  }
  PQsetNoticeProcessor(
      connection.get(), [](void*, const char*) {}, nullptr);  // "does not exist, skipping"
  std::unique_ptr<PGresult, decltype(&PQclear)> result(PQexec(connection.get(), sql.c_str()), &PQclear);
  const auto status = PQresultStatus(result.get());
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
    throw std::runtime_error(sql + ": " + PQresultErrorMessage(result.get()));
  }
  std::vector<std::string> rows;
  for (int row = 0; row < PQntuples(result.get()); ++row) rows.emplace_back(PQgetvalue(result.get(), row, 0));
  return rows;
}

}  // namespace

bool postgres_tests_are_off() {
  const char* state = std::getenv("AMPBENCH_TEST_POSTGRES_STATE");
  return state != nullptr && std::string(state) == "off";
}

std::string postgres_test_url(const std::string& database) {
  return "postgresql://ampbench@/" + database + "?host=" + server_folder();
}

PostgresTestDatabase::PostgresTestDatabase(const std::string& name) {
  database_ = "t" + std::to_string(::getpid()) + "_";
  for (const char c : name)
    database_ += std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::tolower(c)) : '_';
  // PostgreSQL cuts a name at 63 bytes: a longer one keeps its start and a hash of the whole, so
  // that two databases of one long-named test ("..._a", "..._b") stay two.
  if (database_.size() > 63) {
    std::ostringstream hash;
    hash << std::hex << std::setw(16) << std::setfill('0') << std::hash<std::string>{}(database_);
    database_ = database_.substr(0, 63 - 17) + "_" + hash.str();
  }
  url_ = postgres_test_url(database_);
  const auto admin = postgres_test_url("postgres");
  run_sql(admin, "DROP DATABASE IF EXISTS " + database_ + " WITH (FORCE)");
  run_sql(admin, "CREATE DATABASE " + database_);
}

PostgresTestDatabase::~PostgresTestDatabase() {
  try {
    run_sql(postgres_test_url("postgres"), "DROP DATABASE IF EXISTS " + database_ + " WITH (FORCE)");
  } catch (const std::exception&) {
    // The server may be gone already (the fixture stopped it); its folder goes with it.
  }
}

std::vector<std::string> PostgresTestDatabase::sql(const std::string& sql) const { return run_sql(url_, sql); }

}  // namespace ampbench::testing
