// The atomic writer: classify each target (replace, write through, refuse), write temporaries
// next to the files they replace, fsync them, then rename. POSIX calls rather than streams, for
// fsync, O_EXCL and errno-precise messages.
#include "ampbench/reports/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <set>

#include "ampbench/reports/report_json.h"

namespace ampbench::reports {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(const fs::path& shown, const std::string& why) {
  throw ReportError(shown.string() + ": cannot write: " + why);
}

[[noreturn]] void fail_errno(const fs::path& shown, int error) {
  fail(shown, error == ENOSPC ? std::string("no space left on the device") : std::strerror(error));
}

struct Target {
  fs::path shown;        // as the user gave it, for messages
  fs::path destination;  // what is replaced or written: symbolic links followed
  bool write_through = false;
  mode_t mode = 0666;  // of the file replaced; umask applies to new files
};

// The final target of a chain of symbolic links (dangling or not); path itself if it is none.
fs::path follow_links(const fs::path& path) {
  fs::path current = path;
  for (int hops = 0; hops < 40; ++hops) {
    struct stat info {};
    if (::lstat(current.c_str(), &info) != 0 || !S_ISLNK(info.st_mode)) return current;
    std::error_code error;
    const fs::path target = fs::read_symlink(current, error);
    if (error) fail(path, error.message());
    current = target.is_absolute() ? target : current.parent_path() / target;
  }
  fail(path, std::strerror(ELOOP));
}

Target classify(const fs::path& path) {
  if (path.empty()) throw ReportError("cannot write: the output path is empty");
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    // Absent (or a dangling link): created where the link points. Anything else (a name too long,
    // a folder that is a file) is the user's to fix.
    if (errno != ENOENT) fail_errno(path, errno);
    return {path, follow_links(path)};
  }
  if (S_ISREG(info.st_mode)) return {path, follow_links(path), false, static_cast<mode_t>(info.st_mode & 07777)};
  if (S_ISCHR(info.st_mode) || S_ISFIFO(info.st_mode)) return {path, path, true};
  if (S_ISDIR(info.st_mode)) fail(path, "it is a directory");
  fail(path, "it is neither a regular file, a character device nor a FIFO");
}

// A name of its own in the target's folder; the target's name is cut so that a name near the
// 255-byte limit still leaves room for the suffix.
fs::path temporary_sibling(const fs::path& path) {
  static std::atomic<unsigned> counter{0};
  return path.parent_path() / ("." + path.filename().string().substr(0, 200) + ".tmp-" + std::to_string(::getpid()) +
                               "-" + std::to_string(counter++));
}

// Writes all of content to fd; returns 0 or the errno of the failure.
int write_all(int fd, std::string_view content) {
  while (!content.empty()) {
    const ssize_t written = ::write(fd, content.data(), content.size());
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) return written < 0 ? errno : EIO;
    content.remove_prefix(static_cast<std::size_t>(written));
  }
  return 0;
}

// The temporary file for target, written and fsync'ed; removed again if anything fails.
fs::path write_temporary(const Target& target, std::string_view content) {
  const fs::path temporary = temporary_sibling(target.destination);
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, target.mode);
  if (fd < 0) fail_errno(target.shown, errno);
  int error = write_all(fd, content);
  if (error == 0 && ::fsync(fd) != 0) error = errno;
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error != 0) {
    ::unlink(temporary.c_str());
    fail_errno(target.shown, error);
  }
  return temporary;
}

// A device or FIFO: written in place. O_NONBLOCK only for the open, so a FIFO without a reader
// fails (ENXIO) instead of blocking forever.
void write_through(const Target& target, std::string_view content) {
  const int fd = ::open(target.destination.c_str(), O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) fail(target.shown, errno == ENXIO ? "no process is reading from it" : std::strerror(errno));
  int error = 0;
  if (const int flags = ::fcntl(fd, F_GETFL); flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0)
    error = errno;
  if (error == 0) error = write_all(fd, content);
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error != 0) fail_errno(target.shown, error);
}

std::vector<Target> classify_all(const std::vector<fs::path>& paths) {
  std::vector<Target> targets;
  std::set<fs::path> seen;
  for (const auto& path : paths) {
    targets.push_back(classify(path));
    std::error_code ignored;  // absolute() fails only without a working directory: compare as given
    const fs::path absolute = fs::absolute(targets.back().destination, ignored);
    if (!seen.insert((absolute.empty() ? targets.back().destination : absolute).lexically_normal()).second) {
      fail(path, "the same file is named twice among the outputs");
    }
  }
  return targets;
}

void remove_all(const std::vector<fs::path>& temporaries) {
  for (const auto& temporary : temporaries) ::unlink(temporary.c_str());
}

}  // namespace

void write_file_atomically(const fs::path& path, std::string_view content) {
  write_files_atomically({{path, std::string(content)}});
}

void write_files_atomically(const std::vector<OutputFile>& files) {
  std::vector<fs::path> paths;
  for (const auto& file : files) paths.push_back(file.path);
  const auto targets = classify_all(paths);
  std::vector<fs::path> temporaries(files.size());
  try {
    for (std::size_t i = 0; i < files.size(); ++i) {
      if (!targets[i].write_through) temporaries[i] = write_temporary(targets[i], files[i].content);
    }
    for (std::size_t i = 0; i < files.size(); ++i) {
      if (targets[i].write_through) write_through(targets[i], files[i].content);
    }
  } catch (...) {
    remove_all(temporaries);
    throw;
  }
  // Only a target replaced by a directory between the checks above and here makes a rename fail;
  // the files renamed before it then stay new (documented in docs/failures.md).
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (temporaries[i].empty()) continue;
    if (::rename(temporaries[i].c_str(), targets[i].destination.c_str()) != 0) {
      const int error = errno;
      remove_all({temporaries.begin() + static_cast<std::ptrdiff_t>(i), temporaries.end()});
      fail_errno(targets[i].shown, error);
    }
  }
}

void check_writable_targets(const std::vector<fs::path>& paths) {
  for (const auto& target : classify_all(paths)) {
    if (!target.write_through) ::unlink(write_temporary(target, "").c_str());
  }
}

}  // namespace ampbench::reports
