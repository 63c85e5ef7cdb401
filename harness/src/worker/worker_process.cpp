#include "worker/worker_process.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <utility>
#include <vector>

#include "ampbench/harness/worker.h"
#include "ampbench/reports/report_json.h"
#include "ampbench/reports/run_config.h"
#include "worker/worker_allocator.h"

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

// Splits the child's stderr into lines: progress to the callback, the rest to the parent's stderr.
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

std::vector<std::string> this_environment() {
  std::vector<std::string> entries;
  for (char** entry = environ; *entry != nullptr; ++entry) entries.emplace_back(*entry);
  return entries;
}

pid_t spawn_worker(const Pipe& task, const Pipe& result, const Pipe& errors, const std::vector<std::string>& env) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, task.read_end(), STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, result.write_end(), kWorkerResultFd);
  posix_spawn_file_actions_adddup2(&actions, errors.write_end(), STDERR_FILENO);
  const std::string executable = std::filesystem::read_symlink("/proc/self/exe").string();
  std::vector<char*> argv{const_cast<char*>(executable.c_str()), const_cast<char*>(kWorkerCommand), nullptr};
  std::vector<char*> envp;
  for (const auto& entry : env) envp.push_back(const_cast<char*>(entry.c_str()));
  envp.push_back(nullptr);
  pid_t pid = 0;
  const int error = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (error != 0) throw std::runtime_error(std::string("cannot start the cell process: ") + strerror(error));
  return pid;
}

// One running worker: its pipes' read ends, what it has written, and how it ended.
struct Running {
  pid_t pid = 0;
  int stderr_fd = -1;
  int result_fd = -1;
  std::string result_text;
  std::unique_ptr<StderrPump> pump;
  bool killed = false;
  std::string kill_reason;
  bool reaped = false;
  int status = 0;
  [[nodiscard]] bool open() const { return stderr_fd >= 0 || result_fd >= 0; }
};

void kill_worker(Running& worker, const std::string& reason) {
  if (worker.killed || worker.reaped) return;
  worker.killed = true;  // the pipes close once the worker is gone
  worker.kill_reason = reason;
  kill(worker.pid, SIGKILL);
}

using Clock = std::chrono::steady_clock;
using Seconds = std::chrono::duration<double>;
using Instant = decltype(Clock::now() + Seconds(0.0));  // a steady_clock time with a fractional count

// When a group's workers are killed: all at the timeout; the rest at once when one ended without
// a result (a crashed rank leaves its peers waiting in a collective); the rest after straggler_s
// once one ended well. The deciding half of collect_output; the reading half is below.
class GroupDeadline {
 public:
  GroupDeadline(double timeout_s, double straggler_s)
      : deadline_(Clock::now() + Seconds(timeout_s)), straggler_s_(straggler_s) {
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.0f", timeout_s);
    reason_ = "timed out after " + std::string(seconds) + " s (killed; " +
              reports::flag_of(&reports::RunConfig::worker_timeout_s) + ")";
  }

  [[nodiscard]] double seconds_left() const { return Seconds(deadline_ - Clock::now()).count(); }
  [[nodiscard]] const std::string& reason() const { return reason_; }

  // One of the group's workers ended; `crashed`: without a result, and not killed by the group.
  void worker_ended(bool crashed, std::vector<Running>& workers) {
    if (crashed) {
      for (auto& other : workers) kill_worker(other, "stopped: another rank of its group ended without a result");
      return;
    }
    if (straggler_set_) return;
    straggler_set_ = true;
    const auto straggler_deadline = Clock::now() + Seconds(straggler_s_);
    if (straggler_deadline >= deadline_) return;
    deadline_ = straggler_deadline;
    char text[160];
    std::snprintf(text, sizeof text, "killed: still running %.0f s after another rank of its group ended",
                  straggler_s_);
    reason_ = text;
  }

 private:
  Instant deadline_;
  double straggler_s_;
  std::string reason_;
  bool straggler_set_ = false;
};

// Waits up to wait_ms (-1: no limit) for output from any worker and reads what came: progress and
// messages into the worker's pump, its result into result_text; a pipe that closed becomes -1.
// False when poll itself failed.
bool read_available(std::vector<Running>& workers, int wait_ms) {
  std::vector<pollfd> fds;
  std::vector<std::pair<Running*, bool>> owners;  // worker, is its result pipe
  for (auto& worker : workers) {
    if (worker.stderr_fd >= 0) fds.push_back({worker.stderr_fd, POLLIN, 0}), owners.push_back({&worker, false});
    if (worker.result_fd >= 0) fds.push_back({worker.result_fd, POLLIN, 0}), owners.push_back({&worker, true});
  }
  if (poll(fds.data(), fds.size(), wait_ms) < 0) return errno == EINTR;
  char buffer[65536];
  for (std::size_t i = 0; i < fds.size(); ++i) {
    if (fds[i].revents == 0) continue;
    auto& [worker, is_result] = owners[i];
    int& fd = is_result ? worker->result_fd : worker->stderr_fd;
    const ssize_t got = read(fd, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      fd = -1;
    } else if (is_result) {
      worker->result_text.append(buffer, static_cast<std::size_t>(got));
    } else {
      worker->pump->feed(buffer, static_cast<std::size_t>(got));
    }
  }
  return true;
}

// Reaps a worker whose pipes closed; true when it ended without a result.
bool reap(Running& worker) {
  while (waitpid(worker.pid, &worker.status, 0) < 0 && errno == EINTR) {
  }
  worker.reaped = true;
  worker.pump->finish();
  return !(WIFEXITED(worker.status) && WEXITSTATUS(worker.status) == 0) || worker.result_text.empty();
}

// Reads every worker's stderr (progress and its own messages) and result until all close, killing
// them as GroupDeadline decides.
void collect_output(std::vector<Running>& workers, double timeout_s, double straggler_s) {
  GroupDeadline deadline(timeout_s, straggler_s);
  while (std::any_of(workers.begin(), workers.end(), [](const Running& w) { return w.open(); })) {
    const double left = deadline.seconds_left();
    if (left <= 0.0) {
      for (auto& worker : workers) kill_worker(worker, deadline.reason());
    }
    const bool all_killed =
        std::all_of(workers.begin(), workers.end(), [](const Running& w) { return w.killed || !w.open(); });
    const int wait_ms = all_killed ? -1 : static_cast<int>(std::ceil(std::clamp(left, 0.0, 3600.0) * 1000.0));
    if (!read_available(workers, wait_ms)) break;
    // A worker whose pipes closed has ended: reap it, and let its fate decide the others'.
    for (auto& worker : workers) {
      if (worker.open() || worker.reaped) continue;
      const bool failed = reap(worker);
      if (workers.size() > 1) deadline.worker_ended(failed && !worker.killed, workers);
    }
  }
}

WorkerOutcome outcome_of(const Running& worker) {
  WorkerOutcome outcome;
  if (worker.killed) {
    outcome.failure = worker.kill_reason;
  } else if (WIFEXITED(worker.status) && WEXITSTATUS(worker.status) == 0 && !worker.result_text.empty()) {
    const auto result = nlohmann::json::parse(worker.result_text, nullptr, false);
    if (result.is_discarded()) {
      outcome.failure = "the cell process wrote an unreadable result";
    } else {
      outcome.result = result;
    }
  } else {
    outcome.failure = describe_exit(worker.status);
    outcome.crashed = WIFSIGNALED(worker.status);
  }
  return outcome;
}

}  // namespace

void emit_progress(const nlohmann::json& progress) { std::cerr << kProgressPrefix << progress.dump() << std::endl; }

WorkerOutcome run_in_worker(const nlohmann::json& task, reports::AllocatorPolicy allocator, double timeout_s,
                            const std::function<void(const nlohmann::json&)>& on_progress) {
  return run_in_worker_group({task}, allocator, timeout_s, 0.0, on_progress).front();
}

std::vector<WorkerOutcome> run_in_worker_group(const std::vector<nlohmann::json>& tasks,
                                               reports::AllocatorPolicy allocator, double timeout_s, double straggler_s,
                                               const std::function<void(const nlohmann::json&)>& on_progress) {
  const std::function<void(const nlohmann::json&)> no_progress;
  std::vector<std::string> env;
  std::vector<Running> workers(tasks.size());
  std::vector<WorkerOutcome> outcomes(tasks.size());
  std::vector<std::unique_ptr<Pipe>> pipes;  // kept open until every worker is collected
  std::string start_failure;
  for (std::size_t i = 0; i < tasks.size() && start_failure.empty(); ++i) {
    auto& task_pipe = *pipes.emplace_back(std::make_unique<Pipe>());
    auto& result_pipe = *pipes.emplace_back(std::make_unique<Pipe>());
    auto& error_pipe = *pipes.emplace_back(std::make_unique<Pipe>());
    try {
      if (env.empty()) env = worker_environment(allocator, this_environment());
      workers[i].pid = spawn_worker(task_pipe, result_pipe, error_pipe, env);
      task_pipe.close_read();
      result_pipe.close_write();
      error_pipe.close_write();
      // Small enough for the pipe's buffer, and the child reads it whole before anything else.
      auto task = tasks[i];
      task[kWorkerAllocatorKey] = std::string(reports::to_string(allocator));  // the worker applies what it runs under
      write_all(task_pipe.write_end(), task.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
      task_pipe.close_write();
      workers[i].stderr_fd = error_pipe.read_end();
      workers[i].result_fd = result_pipe.read_end();
      workers[i].pump = std::make_unique<StderrPump>(i == 0 ? on_progress : no_progress);
    } catch (const std::exception& error) {
      start_failure = error.what();
    }
  }
  if (!start_failure.empty()) {
    for (auto& worker : workers) {
      if (worker.pid <= 0) continue;
      kill(worker.pid, SIGKILL);
      waitpid(worker.pid, nullptr, 0);
    }
    for (auto& outcome : outcomes) outcome.failure = start_failure;
    return outcomes;
  }
  collect_output(workers, timeout_s, straggler_s);
  for (std::size_t i = 0; i < workers.size(); ++i) outcomes[i] = outcome_of(workers[i]);
  return outcomes;
}

}  // namespace ampbench::harness::detail
