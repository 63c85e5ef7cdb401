// The environment read back strictly, like the rest of the report: errors name the field.
#include <algorithm>
#include <string>

#include "ampbench/reports/allocator_policy.h"
#include "ampbench/reports/environment.h"
#include "ampbench/reports/json_reader.h"
#include "io/device_state_json.h"
#include "io/report_read.h"

namespace ampbench::reports {
namespace detail {

DeviceInfo read_device_info(const nlohmann::json& in, const std::string& path) {
  ObjectReader fields(in, path);
  DeviceInfo value;
  value.name = fields.text("name");
  value.model = fields.text("model");
  value.compute_capability = fields.text("compute_capability");
  value.total_memory_bytes = fields.integer("total_memory_bytes");
  value.multiprocessors = static_cast<int>(fields.integer_in("multiprocessors", 0, std::numeric_limits<int>::max()));
  // Written for GPUs only, and not by reports older than it.
  if (const auto* mode = fields.optional("compute_mode"))
    value.compute_mode = read_string(*mode, fields.path_of("compute_mode"));
  if (const auto* clocks = fields.optional("clocks")) value.clocks = read_gpu_clocks(*clocks, fields.path_of("clocks"));
  fields.finish();
  return value;
}

GemmPeak read_gemm_peak(const nlohmann::json& in, const std::string& path) {
  ObjectReader fields(in, path);
  GemmPeak value;
  value.device = fields.text("device");
  value.dtype = fields.text("dtype");
  value.status = fields.named("status", kMeasurementStatuses);
  value.reason = fields.text("reason");
  value.flops_per_s = fields.number_or_null("flops_per_s");
  value.matrix_size = fields.integer("matrix_size");
  value.method = fields.text("method");
  if (const auto* ratio = fields.optional("versus_float32")) {  // absent in older reports
    ObjectReader ratio_fields(*ratio, fields.path_of("versus_float32"));
    GemmSpeedRatio speed{read_ratio_fields(ratio_fields), ratio_fields.integer_in("rounds", 1, 1000000)};
    if (ratio_fields.optional("matrix_size") != nullptr) {  // absent where no size was shared, and before it was kept
      speed.matrix_size = ratio_fields.integer_in("matrix_size", 1, std::numeric_limits<std::int64_t>::max());
    }
    ratio_fields.finish();
    value.versus_float32 = speed;
  }
  fields.finish();
  return value;
}

AllocatorRecord read_allocator_record(const nlohmann::json& in, const std::string& path) {
  ObjectReader fields(in, path);
  AllocatorRecord value;
  value.policy = fields.text("policy");
  if (!parse_allocator_policy(value.policy)) {
    fail_at(fields.path_of("policy"), "'" + value.policy + "' is not " + allocator_policy_names());
  }
  value.library = fields.text("library");
  value.version = fields.text("version");
  value.settings = fields.text("settings");
  value.page_fault_s = read_finite_number(fields.required("page_fault_s"), fields.path_of("page_fault_s"));
  if (value.page_fault_s < 0.0) fail_at(fields.path_of("page_fault_s"), "must not be negative");
  fields.finish();
  return value;
}

Environment read_environment(const nlohmann::json& in, const std::string& path) {
  ObjectReader fields(in, path);
  Environment value;
  for (auto [key, target] : {std::pair{"ampbench_version", &value.ampbench_version},
                             {"git_revision", &value.git_revision},
                             {"timestamp_utc", &value.timestamp_utc},
                             {"hostname", &value.hostname},
                             {"cpu_model", &value.cpu_model},
                             {"cpu_capability", &value.cpu_capability},
                             {"torch_version", &value.torch_version},
                             {"torch_cuda_version", &value.torch_cuda_version},
                             {"cudnn_version", &value.cudnn_version},
                             {"cupti_version", &value.cupti_version},
                             {"cuda_status", &value.cuda_status}}) {
    *target = fields.text(key);
  }
  value.threads = static_cast<int>(fields.integer_in("threads", 0, std::numeric_limits<int>::max()));
  value.devices = read_array<DeviceInfo>(fields.required("devices"), fields.path_of("devices"), read_device_info);
  // Reports written before the roofline have no peaks; they read as "none measured".
  if (const auto* peaks = fields.optional("gemm_peaks")) {
    value.gemm_peaks = read_array<GemmPeak>(*peaks, fields.path_of("gemm_peaks"), read_gemm_peak);
  }
  // Reports written before it was recorded have no LibTorch folder.
  if (const auto* folder = fields.optional("torch_library")) {
    value.torch_library = read_string(*folder, fields.path_of("torch_library"));
  }
  // Reports written before `explain` have no ISA flags.
  if (const auto* flags = fields.optional("cpu_flags")) {
    value.cpu_flags = read_array<std::string>(*flags, fields.path_of("cpu_flags"), read_string);
  }
  if (const auto* note = fields.optional("gpu_verification")) {
    value.gpu_verification = read_string(*note, fields.path_of("gpu_verification"));
  }
  // Reports written before the allocator was a setting have no record.
  if (const auto* allocator = fields.optional("allocator")) {
    value.allocator = read_allocator_record(*allocator, fields.path_of("allocator"));
  }
  if (const auto* meter = fields.optional("energy_meter")) {  // absent in older reports
    value.energy_meter = read_energy_meter(*meter, fields.path_of("energy_meter"));
  }
  fields.finish();
  return value;
}

}  // namespace detail

void from_json(const nlohmann::json& in, DeviceInfo& device) { device = detail::read_device_info(in, ""); }
void from_json(const nlohmann::json& in, GemmPeak& peak) { peak = detail::read_gemm_peak(in, ""); }
void from_json(const nlohmann::json& in, AllocatorRecord& allocator) {
  allocator = detail::read_allocator_record(in, "");
}
void from_json(const nlohmann::json& in, Environment& environment) { environment = detail::read_environment(in, ""); }

}  // namespace ampbench::reports
