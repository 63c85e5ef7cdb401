#include "worker/worker_allocator.h"

#include <dlfcn.h>
#include <gnu/libc-version.h>
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <stdexcept>
#include <string_view>

#include "ampbench/reports/run_config.h"
#include "ampbench/reports/stats.h"

extern char** environ;

namespace ampbench::harness::detail {
namespace {

using reports::AllocatorPolicy;

// mallopt takes an int: 1 GiB is the largest power of two it accepts for the mmap threshold (a
// block above it is still mapped per use), INT_MAX the largest trim threshold.
constexpr int kFixedMmapThreshold = 1 << 30;
constexpr int kFixedTrimThreshold = INT_MAX;

constexpr std::array<const char*, 5> kLibraryFolders{"/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu", "/usr/lib64",
                                                     "/usr/lib", "/usr/local/lib"};

bool names_an_allocator(std::string_view path) {
  const auto name = path.substr(path.rfind('/') == std::string_view::npos ? 0 : path.rfind('/') + 1);
  for (const std::string_view allocator : {"jemalloc", "tcmalloc", "mimalloc"}) {
    if (name.find(allocator) != std::string_view::npos) return true;
  }
  return false;
}

// glibc's MALLOC_*_ variables (MALLOC_ARENA_MAX, MALLOC_TRIM_THRESHOLD_, ...), jemalloc's
// MALLOC_CONF and tcmalloc's TCMALLOC_* all change the allocator a policy names.
bool is_allocator_variable(std::string_view name) {
  return name == "MALLOC_CONF" || name.starts_with("TCMALLOC_") || name.starts_with("MALLOC_");
}

// The entries of a list (`separators` between them) that `keep` accepts, joined by the first separator.
template <typename Keep>
std::string filtered_list(std::string_view list, std::string_view separators, Keep keep) {
  std::string out;
  std::size_t start = 0;
  while (start <= list.size()) {
    const auto end = std::min(list.find_first_of(separators, start), list.size());
    const auto entry = list.substr(start, end - start);
    if (!entry.empty() && keep(entry))
      out += (out.empty() ? "" : std::string(1, separators.front())) + std::string(entry);
    start = end + 1;
  }
  return out;
}

std::string malloc_library() {
  Dl_info info{};
  void* symbol = dlsym(RTLD_DEFAULT, "malloc");
  if (symbol == nullptr || dladdr(symbol, &info) == 0 || info.dli_fname == nullptr) return "unknown";
  return info.dli_fname;
}

std::string library_version(AllocatorPolicy policy) {
  if (policy == AllocatorPolicy::kJemalloc) {
    using Mallctl = int (*)(const char*, void*, std::size_t*, void*, std::size_t);
    const auto mallctl = reinterpret_cast<Mallctl>(dlsym(RTLD_DEFAULT, "mallctl"));
    const char* version = nullptr;
    std::size_t size = sizeof version;
    if (mallctl != nullptr && mallctl("version", &version, &size, nullptr, 0) == 0 && version != nullptr)
      return std::string("jemalloc ") + version;
    return "jemalloc (version unknown)";
  }
  if (policy == AllocatorPolicy::kTcmalloc) {
    using TcVersion = const char* (*)(int*, int*, const char**);
    const auto tc_version = reinterpret_cast<TcVersion>(dlsym(RTLD_DEFAULT, "tc_version"));
    int major = 0;
    int minor = 0;
    const char* patch = nullptr;
    const char* text = tc_version != nullptr ? tc_version(&major, &minor, &patch) : nullptr;
    return text != nullptr ? text : "tcmalloc (version unknown)";
  }
  return std::string("glibc ") + gnu_get_libc_version();
}

std::string policy_settings(AllocatorPolicy policy) {
  switch (policy) {
    case AllocatorPolicy::kGlibc:
      return "glibc's defaults: a block of 128 KiB or more is mapped on its own (the threshold rising with the "
             "blocks freed, to 32 MiB), and the heap's free top beyond twice that goes back to the kernel";
    case AllocatorPolicy::kGlibcFixed:
      return "mallopt M_MMAP_THRESHOLD=" + std::to_string(kFixedMmapThreshold) +
             ", M_TRIM_THRESHOLD=" + std::to_string(kFixedTrimThreshold) +
             ": blocks below 1 GiB come from the heap, and freed memory stays in the process";
    case AllocatorPolicy::kJemalloc:
      return "its defaults (no MALLOC_CONF)";
    case AllocatorPolicy::kTcmalloc:
      return "its defaults (no TCMALLOC_ variables)";
  }
  return "";
}

// With --no-isolate the process keeps the environment it was started with: say what in it could
// change the policy.
std::string inherited_settings() {
  std::string names;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    const auto name = text.substr(0, text.find('='));
    const bool tunes_malloc = name == "GLIBC_TUNABLES" && text.find("glibc.malloc.") != std::string_view::npos;
    if (is_allocator_variable(name) || tunes_malloc) names += (names.empty() ? "" : ", ") + std::string(name);
  }
  return names.empty() ? "" : "; this process's environment also sets " + names;
}

bool is_expected_library(AllocatorPolicy policy, const std::string& library) {
  const auto name = std::filesystem::path(library).filename().string();
  const auto& expected = reports::allocator_policy_info(policy).library;
  return expected.empty() ? name.rfind("libc.so", 0) == 0 : name == expected;
}

// The system's library folders; a test aid replaces them (AMPBENCH_LIBRARY_FOLDERS, colon-separated)
// to show what a machine without the library gets.
std::vector<std::string> library_folders() {
  const char* override = std::getenv("AMPBENCH_LIBRARY_FOLDERS");
  if (override == nullptr) return {kLibraryFolders.begin(), kLibraryFolders.end()};
  std::vector<std::string> folders;
  (void)filtered_list(override, ":", [&](std::string_view folder) {
    folders.emplace_back(folder);
    return true;
  });
  return folders;
}

}  // namespace

std::string allocator_library_path(AllocatorPolicy policy) {
  const auto& info = reports::allocator_policy_info(policy);
  if (info.library.empty()) return "";
  for (const auto& folder : library_folders()) {
    const auto path = std::filesystem::path(folder) / info.library;
    if (access(path.c_str(), R_OK) == 0) return path.string();
  }
  throw reports::SettingError(reports::flag_of(&reports::RunConfig::allocator) + " " + std::string(info.name) + ": " +
                              std::string(info.library) + " is not installed (Debian's " + std::string(info.package) +
                              " provides it; scripts/bootstrap installs it)");
}

std::vector<std::string> worker_environment(AllocatorPolicy policy, const std::vector<std::string>& parent) {
  std::vector<std::string> out;
  std::string preload = allocator_library_path(policy);
  for (const auto& entry : parent) {
    const auto equals = entry.find('=');
    const std::string_view name(entry.data(), equals == std::string::npos ? entry.size() : equals);
    const std::string_view value = equals == std::string::npos ? "" : std::string_view(entry).substr(equals + 1);
    if (is_allocator_variable(name)) continue;
    if (name == "LD_PRELOAD") {
      const auto others = filtered_list(value, ": ", [](std::string_view item) { return !names_an_allocator(item); });
      if (!others.empty()) preload += (preload.empty() ? "" : ":") + others;
    } else if (name == "GLIBC_TUNABLES") {
      const auto kept =
          filtered_list(value, ":", [](std::string_view item) { return !item.starts_with("glibc.malloc."); });
      if (!kept.empty()) out.push_back("GLIBC_TUNABLES=" + kept);
    } else {
      out.push_back(entry);
    }
  }
  if (!preload.empty()) out.push_back("LD_PRELOAD=" + preload);
  return out;
}

reports::AllocatorRecord apply_allocator_policy(AllocatorPolicy policy) {
  if (policy == AllocatorPolicy::kGlibcFixed) {
    if (mallopt(M_MMAP_THRESHOLD, kFixedMmapThreshold) != 1 || mallopt(M_TRIM_THRESHOLD, kFixedTrimThreshold) != 1)
      throw std::runtime_error(reports::flag_of(&reports::RunConfig::allocator) +
                               " glibc-fixed: glibc refused the thresholds (mallopt)");
  }
  reports::AllocatorRecord record;
  record.policy = std::string(reports::to_string(policy));
  record.library = malloc_library();
  if (!is_expected_library(policy, record.library)) {
    const auto& info = reports::allocator_policy_info(policy);
    throw std::runtime_error(reports::flag_of(&reports::RunConfig::allocator) + " " + record.policy +
                             ": malloc in this process comes from " + record.library + ", not " +
                             (info.library.empty() ? "glibc" : std::string(info.library)) +
                             (info.library.empty()
                                  ? ""
                                  : " (with " + reports::flag_of(&reports::RunConfig::isolate) +
                                        ", start ampbench under LD_PRELOAD=" + std::string(info.library) + ")"));
  }
  record.version = library_version(policy);
  record.settings = policy_settings(policy) + inherited_settings();
  return record;
}

double measure_page_fault_s() {
  constexpr std::size_t kPages = 2048;
  constexpr int kBatches = 5;
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  std::vector<double> per_page;
  for (int batch = 0; batch < kBatches; ++batch) {
    void* region = mmap(nullptr, kPages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (region == MAP_FAILED) return 0.0;
    madvise(region, kPages * page, MADV_NOHUGEPAGE);  // one fault per 4 KiB page, as the counters count
    auto* bytes = static_cast<volatile char*>(region);
    const auto start = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < kPages; ++i) bytes[i * page] = 1;
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    munmap(region, kPages * page);
    per_page.push_back(seconds / static_cast<double>(kPages));
  }
  return reports::median(per_page);
}

}  // namespace ampbench::harness::detail
