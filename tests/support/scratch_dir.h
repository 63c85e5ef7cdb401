// A fresh directory for one test's files, removed with everything in it when the test ends.
#pragma once

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <string>

namespace ampbench::testing {

class ScratchDir {
 public:
  // Unique per process and per object: tests run in parallel processes, some with two of these.
  ScratchDir()
      : path_(std::filesystem::temp_directory_path() /
              ("ampbench-test-" + std::to_string(::getpid()) + "-" + std::to_string(next_index()))) {
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  [[nodiscard]] const std::filesystem::path& path() const { return path_; }
  [[nodiscard]] std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  static int next_index() {
    static std::atomic<int> index{0};
    return index++;
  }

  std::filesystem::path path_;
};

}  // namespace ampbench::testing
