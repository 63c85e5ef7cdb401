// A fresh, empty database on the tests' PostgreSQL server (tests/support/postgres-test-server,
// started by CTest's "postgres" fixture, which names its folder in $AMPBENCH_TEST_POSTGRES_STATE),
// dropped when the object goes. And SQL run on it with libpq directly, not through the store: to
// make databases that are not ampbench's, or of a newer schema, or locked.
#pragma once

#include <string>
#include <vector>

namespace ampbench::testing {

class PostgresTestDatabase {
 public:
  // `name`: unique among the tests running at once (the process id is added).
  explicit PostgresTestDatabase(const std::string& name);
  ~PostgresTestDatabase();
  PostgresTestDatabase(const PostgresTestDatabase&) = delete;
  PostgresTestDatabase& operator=(const PostgresTestDatabase&) = delete;

  // postgresql://ampbench@/<database>?host=<the server's socket folder>
  [[nodiscard]] const std::string& url() const { return url_; }
  // Runs `sql` (';'-separated statements); the first column of every row of the last one's result.
  std::vector<std::string> sql(const std::string& sql) const;

 private:
  std::string database_;
  std::string url_;
};

// True when the build was configured with -DAMPBENCH_POSTGRES_TESTS=OFF (the GPU kit): the tests
// on PostgreSQL skip, saying so.
[[nodiscard]] bool postgres_tests_are_off();

// The URL of a database on the tests' server: `database` need not exist.
[[nodiscard]] std::string postgres_test_url(const std::string& database);

}  // namespace ampbench::testing
