#include "support/process.h"

#include <fcntl.h>
#include <spawn.h>

#include <sys/wait.h>
#include <unistd.h>
#include <atomic>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

extern char** environ;

namespace ampbench::testing {
namespace {

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, const std::vector<std::string>& extra_environment) {
  // One folder per call: tests run several programs at once (the ranks of a group).
  static std::atomic<int> calls{0};
  const auto dir = std::filesystem::temp_directory_path() /
                   ("ampbench-proc-" + std::to_string(getpid()) + "-" + std::to_string(calls++));
  std::filesystem::create_directories(dir);
  const auto out_path = dir / "stdout";
  const auto err_path = dir / "stderr";

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<char*> args;
  for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);

  std::vector<char*> environment(extra_environment.size());
  std::transform(extra_environment.begin(), extra_environment.end(), environment.begin(),
                 [](const std::string& entry) { return const_cast<char*>(entry.c_str()); });
  for (char** entry = environ; *entry != nullptr; ++entry) environment.push_back(*entry);
  environment.push_back(nullptr);

  pid_t pid = 0;
  const int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environment.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw std::runtime_error("cannot start " + argv.front());
  int status = 0;
  waitpid(pid, &status, 0);

  ProcessResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = read_file(out_path);
  result.err = read_file(err_path);
  std::filesystem::remove_all(dir);
  return result;
}

}  // namespace ampbench::testing
