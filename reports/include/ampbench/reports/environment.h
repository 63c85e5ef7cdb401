// The machine and software a report was measured on. Part of the report contract: compare and
// check refuse to judge reports from different environments unless told to.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "ampbench/reports/device_state.h"
#include "ampbench/reports/measurement_status.h"
#include "ampbench/reports/ratio.h"

namespace ampbench::reports {

// Environment::cuda_status when a GPU can be used; any other text says why none can.
inline constexpr const char* kCudaAvailable = "available";

struct DeviceInfo {
  std::string name;                // "cpu" or "cuda:N"
  std::string model;               // CPU model string or GPU product name
  std::string compute_capability;  // "9.0" for GPUs, empty for the CPU
  std::int64_t total_memory_bytes = 0;
  int multiprocessors = 0;   // SMs on GPUs, logical cores on the CPU
  std::string compute_mode;  // GPUs: "Default", "Exclusive Process", "Prohibited"; empty for the CPU or unknown
  std::optional<GpuClockRecord> clocks =
      std::nullopt;  // GPUs, from NVML; absent where it could not be loaded and in older reports
};

// A dtype's at::mm speed over float32's on the same device, in rounds interleaved with the other
// dtypes, at a square size both were timed at; the median of the per-round ratios and its 95%
// order-statistic interval (reports::summarize). Whether a dtype's GEMM beats float32's is a claim
// explain makes only when the interval says so.
struct GemmSpeedRatio {
  Ratio speed;
  std::int64_t rounds = 0;
  // N of the size the rounds were paired at; 0 when the two shared no size timed, and in reports
  // before it was recorded: then each was timed at its own peak's matrix_size.
  std::int64_t matrix_size = 0;
};

// The best at::mm throughput the run measured for one dtype on the device in use: the roofline a
// cell's achieved FLOP/s is read against. A measurement on this machine, not a datasheet figure.
struct GemmPeak {
  std::string device;  // "cpu" or "cuda:N"
  std::string dtype;   // "float32", "float16", "bfloat16"; "tfloat32" is float32 with TF32 matmul
  MeasurementStatus status = MeasurementStatus::kMeasured;
  std::string reason;            // why unavailable; empty when measured
  double flops_per_s = 0.0;      // 2 N^3 over the fastest call's time
  std::int64_t matrix_size = 0;  // N of the square operands
  std::string method;            // "at::mm 1024x1024, best of 12 calls, 2 threads"
  // Absent for float32 itself, for a dtype that could not be measured, and in older reports.
  std::optional<GemmSpeedRatio> versus_float32 = std::nullopt;
};

// The allocator the run's workers ran under, as each of them found it (docs/running.md).
struct AllocatorRecord {
  std::string policy;    // the --allocator setting: "glibc", "glibc-fixed", "jemalloc", "tcmalloc"
  std::string library;   // the shared object malloc resolved to in the workers, e.g. ".../libc.so.6"
  std::string version;   // that library's own version: "glibc 2.36", "jemalloc 5.3.0-0-g...", "tcmalloc 2.10"
  std::string settings;  // what the policy set, e.g. "mallopt M_MMAP_THRESHOLD=1073741824, M_TRIM_THRESHOLD=..."
  // What one minor page fault cost here: a fresh page touched, median over a few thousand (the
  // explain finding that prices a cell's faults). 0 when not measured.
  double page_fault_s = 0.0;
};

struct Environment {
  std::string ampbench_version;
  std::string git_revision;
  std::string timestamp_utc;  // ISO 8601, when the run started
  std::string hostname;
  std::string cpu_model;
  std::string cpu_capability;  // ATen's dispatch level: "AVX2", "AVX512", ...
  // The CPU's ISA flags that decide low-precision GEMM speed (avx512_bf16, avx512_fp16, amx_bf16,
  // amx_fp16, amx_tile, avx512_vnni, avx_vnni, avx512f, avx2, fma, f16c) that it has; empty in
  // older reports and where /proc/cpuinfo is not readable.
  std::vector<std::string> cpu_flags;
  int threads = 0;  // intra-op threads LibTorch used
  std::string torch_version;
  std::string torch_library;         // folder of the libtorch_cpu.so loaded; empty in older reports
  std::string torch_cuda_version;    // the CUDA LibTorch was built with, empty without CUDA
  std::string cudnn_version;         // empty when cuDNN is not loadable
  std::string cupti_version;         // CUPTI API version ampbench was built against
  std::string cuda_status;           // kCudaAvailable, or why no GPU can be used ("unavailable: ...")
  std::vector<DeviceInfo> devices;   // the CPU first, then every visible GPU
  std::vector<GemmPeak> gemm_peaks;  // empty when none was measured (`ampbench env`, older reports)
  // Absent in older reports (they ran under glibc's defaults) and in `ampbench env`.
  std::optional<AllocatorRecord> allocator;
  // How far the GPU measurement paths of the ampbench that wrote the report have been verified on a
  // real GPU, written by a run on a GPU (which knows its own version); empty otherwise and in older
  // reports, which then render without a note.
  std::string gpu_verification;
  // What measured the cells' energy on the run's device, or why nothing could; absent in older
  // reports and in `ampbench env`.
  std::optional<EnergyMeterRecord> energy_meter;
};

void to_json(nlohmann::json& out, const DeviceInfo& device);
void from_json(const nlohmann::json& in, DeviceInfo& device);
void to_json(nlohmann::json& out, const GemmPeak& peak);
void from_json(const nlohmann::json& in, GemmPeak& peak);
void to_json(nlohmann::json& out, const AllocatorRecord& allocator);
void from_json(const nlohmann::json& in, AllocatorRecord& allocator);
void to_json(nlohmann::json& out, const Environment& environment);
void from_json(const nlohmann::json& in, Environment& environment);

// The environment for people (`ampbench env`): the stack's versions, the CPU and every device.
[[nodiscard]] std::string render_environment_text(const Environment& env);

}  // namespace ampbench::reports
