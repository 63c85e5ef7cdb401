#include "worker_process.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <utility>
#include <vector>

#include "ampbench/harness/worker.h"

extern char** environ;

namespace ampbench::harness::detail {
namespace {

// Progress travels from child to parent as lines with this prefix on the child's stderr; every
// other line is the child's own output (LibTorch warnings, say) and is passed through.
constexpr std::string_view kProgressPrefix = "ampbench-progress ";

class Pipe {
 public:
  Pipe() {
    if (pipe2(fds_, O_CLOEXEC) != 0) throw std::runtime_error(std::string("cannot create a pipe: ") + strerror(errno));
  }
  ~Pipe() {
    close_read();
    close_write();
  }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;
  [[nodiscard]] int read_end() const { return fds_[0]; }
  [[nodiscard]] int write_end() const { return fds_[1]; }
  void close_read() { close_fd(fds_[0]); }
  void close_write() { close_fd(fds_[1]); }

 private:
  static void close_fd(int& fd) {
    if (fd >= 0) close(fd);
    fd = -1;
  }
  int fds_[2] = {-1, -1};
};

std::string describe_exit(int status) {
  if (WIFSIGNALED(status)) {
    const int signal = WTERMSIG(status);
    std::string text = "cell process killed by signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
    if (signal == SIGKILL) text += "; out of memory?";
    return text;
  }
  return "cell process exited with code " + std::to_string(WEXITSTATUS(status)) + " without a result";
}

// A worker that died before reading its task must not take this process with it: SIGPIPE is
// blocked around the write (EPIPE reports it instead) and a pending one consumed.
void write_all(int fd, const std::string& text) {
  sigset_t pipe_signal;
  sigemptyset(&pipe_signal);
  sigaddset(&pipe_signal, SIGPIPE);
  sigset_t previous;
  pthread_sigmask(SIG_BLOCK, &pipe_signal, &previous);
  int error = 0;
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t wrote = write(fd, text.data() + done, text.size() - done);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) {
      error = errno;
      break;
    }
    done += static_cast<std::size_t>(wrote);
  }
  const timespec no_wait{0, 0};
  while (sigtimedwait(&pipe_signal, nullptr, &no_wait) == SIGPIPE) {
  }
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  if (error != 0) throw std::runtime_error(std::string("cannot write to the worker: ") + strerror(error));
}

// Splits the child's stderr into lines: progress to the callback, the rest to our stderr.
class StderrPump {
 public:
  explicit StderrPump(const std::function<void(const nlohmann::json&)>& on_progress) : on_progress_(on_progress) {}
  void feed(const char* data, std::size_t size) {
    pending_.append(data, size);
    for (std::size_t end; (end = pending_.find('\n')) != std::string::npos; pending_.erase(0, end + 1)) {
      line(pending_.substr(0, end));
    }
  }
  void finish() {
    if (!pending_.empty()) line(pending_);
    pending_.clear();
  }

 private:
  void line(const std::string& text) {
    if (text.rfind(kProgressPrefix, 0) != 0) {
      std::cerr << text << "\n";
      return;
    }
    const auto progress = nlohmann::json::parse(text.substr(kProgressPrefix.size()), nullptr, false);
    if (on_progress_ && !progress.is_discarded()) on_progress_(progress);
  }
  const std::function<void(const nlohmann::json&)>& on_progress_;
  std::string pending_;
};

pid_t spawn_worker(const Pipe& task, const Pipe& result, const Pipe& errors) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, task.read_end(), STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, result.write_end(), kWorkerResultFd);
  posix_spawn_file_actions_adddup2(&actions, errors.write_end(), STDERR_FILENO);
  const std::string executable = std::filesystem::read_symlink("/proc/self/exe").string();
  std::vector<char*> argv{const_cast<char*>(executable.c_str()), const_cast<char*>(kWorkerCommand), nullptr};
  pid_t pid = 0;
  const int error = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (error != 0) throw std::runtime_error(std::string("cannot start the cell process: ") + strerror(error));
  return pid;
}

// Reads the worker's stderr (progress and its own messages) and its result until both close,
// killing it once the deadline passes. Returns the result text and whether it was killed.
std::pair<std::string, bool> collect_output(pid_t pid, int stderr_fd, int result_fd, double timeout_s,
                                            const std::function<void(const nlohmann::json&)>& on_progress) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  bool timed_out = false;
  std::string result_text;
  StderrPump pump(on_progress);
  pollfd fds[2] = {{stderr_fd, POLLIN, 0}, {result_fd, POLLIN, 0}};
  char buffer[65536];
  while (fds[0].fd >= 0 || fds[1].fd >= 0) {
    const auto left = std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0.0 && !timed_out) {
      timed_out = true;  // the pipes close once the worker is gone
      kill(pid, SIGKILL);
    }
    const int wait_ms = timed_out ? -1 : static_cast<int>(std::ceil(std::min(left, 3600.0) * 1000.0));
    if (poll(fds, 2, wait_ms) < 0 && errno != EINTR) break;
    for (auto& fd : fds) {
      if (fd.fd < 0 || fd.revents == 0) continue;
      const ssize_t got = read(fd.fd, buffer, sizeof buffer);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        fd.fd = -1;
      } else if (&fd == &fds[0]) {
        pump.feed(buffer, static_cast<std::size_t>(got));
      } else {
        result_text.append(buffer, static_cast<std::size_t>(got));
      }
    }
  }
  pump.finish();
  return {result_text, timed_out};
}

}  // namespace

void emit_progress(const nlohmann::json& progress) { std::cerr << kProgressPrefix << progress.dump() << std::endl; }

WorkerOutcome run_in_worker(const nlohmann::json& task, double timeout_s,
                            const std::function<void(const nlohmann::json&)>& on_progress) {
  WorkerOutcome outcome;
  pid_t pid = 0;
  Pipe task_pipe;
  Pipe result_pipe;
  Pipe error_pipe;
  try {
    pid = spawn_worker(task_pipe, result_pipe, error_pipe);
    task_pipe.close_read();
    result_pipe.close_write();
    error_pipe.close_write();
    // Small enough for the pipe's buffer, and the child reads it whole before anything else.
    write_all(task_pipe.write_end(), task.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    task_pipe.close_write();
  } catch (const std::exception& error) {
    if (pid > 0) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
    outcome.failure = error.what();
    return outcome;
  }

  const auto [result_text, timed_out] =
      collect_output(pid, error_pipe.read_end(), result_pipe.read_end(), timeout_s, on_progress);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) {
    char text[96];
    std::snprintf(text, sizeof text, "timed out after %.0f s (killed; --worker-timeout)", timeout_s);
    outcome.failure = text;
  } else if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && !result_text.empty()) {
    const auto result = nlohmann::json::parse(result_text, nullptr, false);
    if (result.is_discarded()) {
      outcome.failure = "the cell process wrote an unreadable result";
    } else {
      outcome.result = result;
    }
  } else {
    outcome.failure = describe_exit(status);
    outcome.crashed = WIFSIGNALED(status);
  }
  return outcome;
}

}  // namespace ampbench::harness::detail
