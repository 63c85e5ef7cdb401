#include "ampbench/harness/environment_probe.h"

#include <ATen/Parallel.h>
#include <ATen/Version.h>
#include <dlfcn.h>
#include <torch/headeronly/version.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "ampbench/harness/build_info.h"
#include "machine/gpu_environment.h"

namespace ampbench::harness {
namespace {

std::string cpu_model_name() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  }
  return "unknown";
}

// The ISA flags of /proc/cpuinfo that decide low-precision GEMM speed on a CPU, those present.
std::vector<std::string> gemm_relevant_cpu_flags() {
  static const std::vector<std::string> kRelevant = {"avx2",        "fma",      "f16c",        "avx512f",
                                                     "avx512_vnni", "avx_vnni", "avx512_bf16", "avx512_fp16",
                                                     "amx_tile",    "amx_bf16", "amx_fp16"};
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("flags", 0) != 0) continue;
    std::istringstream words(line.substr(line.find(':') + 1));
    std::set<std::string> flags{std::istream_iterator<std::string>(words), std::istream_iterator<std::string>()};
    std::vector<std::string> present;
    for (const auto& flag : kRelevant) {
      if (flags.contains(flag)) present.push_back(flag);
    }
    return present;
  }
  return {};
}

std::string utc_now_iso8601() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

std::string host_name() {
  char name[256] = {};
  return gethostname(name, sizeof name - 1) == 0 ? std::string(name) : std::string("unknown");
}

// The folder of the LibTorch this process really loaded (where libtorch_cpu.so lies), which says
// where it came from (a venv's wheel, an unpacked distribution) better than any build setting.
std::string loaded_torch_library() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<const void*>(&at::get_num_threads), &info) == 0 || info.dli_fname == nullptr) {
    return "unknown";
  }
  std::error_code error;
  const auto path = std::filesystem::canonical(info.dli_fname, error);
  return error ? std::string(info.dli_fname) : path.parent_path().string();
}

}  // namespace

std::string compute_mode_name(std::optional<int> cuda_compute_mode) {
  if (!cuda_compute_mode) return "";
  switch (*cuda_compute_mode) {  // the values of CUcomputemode, which cudaComputeMode shares
    case 0:
      return "Default";
    case 1:
      return "Exclusive Thread";
    case 2:
      return "Prohibited";
    case 3:
      return "Exclusive Process";
    default:
      return "unknown (" + std::to_string(*cuda_compute_mode) + ")";
  }
}

reports::Environment probe_environment() {
  reports::Environment environment;
  environment.ampbench_version = std::string(ampbench_version());
  environment.git_revision = std::string(ampbench_git_revision());
  environment.timestamp_utc = utc_now_iso8601();
  environment.hostname = host_name();
  environment.cpu_model = cpu_model_name();
  environment.cpu_capability = at::get_cpu_capability();
  environment.cpu_flags = gemm_relevant_cpu_flags();
  environment.threads = at::get_num_threads();
  environment.torch_version = TORCH_VERSION;
  environment.torch_library = loaded_torch_library();
  environment.devices.push_back(reports::DeviceInfo{
      .name = "cpu",
      .model = environment.cpu_model,
      .compute_capability = "",
      .total_memory_bytes = static_cast<std::int64_t>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGESIZE),
      .multiprocessors = static_cast<int>(std::thread::hardware_concurrency()),
      .compute_mode = "",
  });
  detail::probe_gpu_environment(environment);
  return environment;
}

}  // namespace ampbench::harness
