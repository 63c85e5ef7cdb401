// QuietStderr (harness/src/profile/quiet_stderr.h) under the condition the profiler puts it in: another
// thread writing to std::cerr the whole time it starts and stops. Swapping std::cerr's buffer there
// was a data race (the flaky signal 6 of RunCommand.AnAbortingCellLosesOnlyItself was suspected of
// it); the descriptor swap keeps every write whole and hides only what was written while quiet.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>

#include "profile/quiet_stderr.h"

namespace {

TEST(QuietStderr, HidesWhatIsWrittenWhileQuietAndSurvivesWritersOnOtherThreads) {
  char path[] = "/tmp/ampbench-quiet-stderr-XXXXXX";
  const int file = mkstemp(path);
  ASSERT_GE(file, 0);
  const int original = dup(STDERR_FILENO);
  ASSERT_GE(original, 0);
  dup2(file, STDERR_FILENO);  // this test's own standard error, to read back

  std::atomic<bool> stop{false};
  std::thread writer([&stop] {
    while (!stop) std::cerr << "from another thread\n";
  });
  for (int i = 0; i < 2000; ++i) {
    const ampbench::harness::detail::QuietStderr quiet;
    std::cerr << "hidden\n";
  }
  stop = true;
  writer.join();
  std::cerr << "visible\n";
  std::cerr.flush();
  dup2(original, STDERR_FILENO);
  close(original);
  close(file);

  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::remove(path);
  std::istringstream lines(text.str());
  int visible = 0;
  for (std::string line; std::getline(lines, line);) {
    ASSERT_TRUE(line == "from another thread" || line == "visible") << "a torn or hidden line: '" << line << "'";
    visible += line == "visible" ? 1 : 0;
  }
  EXPECT_EQ(visible, 1);
}

}  // namespace
