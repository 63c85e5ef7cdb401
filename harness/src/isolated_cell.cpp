#include "ampbench/harness/isolated_cell.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <vector>

#include "ampbench/reports/atomic_file.h"
#include "ampbench/reports/report_json.h"

extern char** environ;

namespace ampbench::harness {
namespace {

// Progress travels from child to parent as lines with this prefix on the child's stderr; every
// other line is the child's own output and is passed through.
constexpr const char* kProgressPrefix = "ampbench-progress ";

class ScratchDirectory {
 public:
  ScratchDirectory() {
    std::string pattern = (std::filesystem::temp_directory_path() / "ampbench-cell-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("cannot create a temporary directory");
    path_ = pattern;
  }
  ~ScratchDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

reports::CellResult failed_cell(const CellSpec& spec, const std::string& error) {
  reports::CellResult result;
  result.workload = spec.workload;
  result.mode = spec.mode;
  result.device = spec.device;
  result.preset = spec.preset;
  result.status = "failed";
  result.error = error;
  return result;
}

std::string describe_exit(int status) {
  if (WIFSIGNALED(status)) {
    const int signal = WTERMSIG(status);
    std::string text = "cell process killed by signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
    if (signal == SIGKILL) text += "; out of memory?";
    return text;
  }
  return "cell process exited with code " + std::to_string(WEXITSTATUS(status)) + " without a result";
}

// Reads the child's stderr to its end: progress lines go to the sink, the rest to our stderr.
std::string pump_child_stderr(int fd, const ProgressSink& progress) {
  std::string pending;
  std::string last_line;  // the most telling line: an exception's message, else the first line
  char buffer[4096];
  const auto handle_line = [&](const std::string& line) {
    if (line.rfind(kProgressPrefix, 0) == 0) {
      CellProgress update;
      std::istringstream fields(line.substr(std::strlen(kProgressPrefix)));
      fields >> update.step >> update.timed_steps >> update.timed_elapsed_s >> update.time_cap_s;
      if (progress) progress(update);
      return;
    }
    std::cerr << line << "\n";
    // The error is the line an uncaught exception prints ("what(): ..."), not the backtrace after it.
    const auto what = line.find("what():");
    if (what != std::string::npos) {
      last_line = line.substr(line.find_first_not_of(' ', what + 7));
    } else if (!line.empty() && line.rfind("frame #", 0) != 0 && line.rfind("Exception raised", 0) != 0 &&
               last_line.empty()) {
      last_line = line;
    }
  };
  for (ssize_t got; (got = read(fd, buffer, sizeof buffer)) != 0;) {
    if (got < 0) {
      if (errno == EINTR) continue;
      break;
    }
    pending.append(buffer, static_cast<std::size_t>(got));
    for (std::size_t end; (end = pending.find('\n')) != std::string::npos; pending.erase(0, end + 1)) {
      handle_line(pending.substr(0, end));
    }
  }
  if (!pending.empty()) handle_line(pending);
  return last_line;
}

}  // namespace

std::filesystem::path current_executable() { return std::filesystem::read_symlink("/proc/self/exe"); }

reports::CellResult run_cell_isolated(const CellSpec& spec, const std::filesystem::path& executable,
                                      const ProgressSink& progress) {
  const ScratchDirectory scratch;
  const auto spec_path = scratch.path() / "spec.json";
  const auto result_path = scratch.path() / "result.json";
  std::ofstream(spec_path) << nlohmann::json(spec).dump();

  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) return failed_cell(spec, "cannot create a pipe for the cell process");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDERR_FILENO);
  const std::vector<std::string> args{executable.string(), "cell-worker", "--spec",
                                      spec_path.string(),  "--result",    result_path.string()};
  std::vector<char*> argv;
  for (const auto& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int spawn_error = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(pipe_fds[1]);
  if (spawn_error != 0) {
    close(pipe_fds[0]);
    return failed_cell(spec, "cannot start the cell process: " + std::string(strerror(spawn_error)));
  }
  const std::string last_line = pump_child_stderr(pipe_fds[0], progress);
  close(pipe_fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }

  if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && std::filesystem::exists(result_path)) {
    try {
      return nlohmann::json::parse(std::ifstream(result_path)).get<reports::CellResult>();
    } catch (const std::exception& error) {
      return failed_cell(spec, std::string("unreadable cell result: ") + error.what());
    }
  }
  const std::string reason = describe_exit(status);
  return failed_cell(spec, last_line.empty() ? reason : reason + ": " + last_line);
}

int run_cell_worker(const std::filesystem::path& spec_path, const std::filesystem::path& result_path) {
  const auto spec = nlohmann::json::parse(std::ifstream(spec_path)).get<CellSpec>();
  // Test aid: AMPBENCH_ABORT_CELL=workload/mode makes that cell's process abort, as a crash in
  // LibTorch would, to prove that the other cells and the report survive.
  if (const char* doomed = std::getenv("AMPBENCH_ABORT_CELL");
      doomed != nullptr && spec.workload + "/" + spec.mode == doomed) {
    std::cerr << "aborting on purpose (AMPBENCH_ABORT_CELL=" << doomed << ")" << std::endl;
    std::abort();
  }
  const auto result = run_cell(spec, [](const CellProgress& update) {
    std::cerr << kProgressPrefix << update.step << ' ' << update.timed_steps << ' ' << update.timed_elapsed_s << ' '
              << update.time_cap_s << std::endl;
  });
  reports::write_file_atomically(result_path, nlohmann::json(result).dump());
  return 0;
}

}  // namespace ampbench::harness
