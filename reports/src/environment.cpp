#include "ampbench/reports/environment.h"

#include <nlohmann/json.hpp>

namespace ampbench::reports {

void to_json(nlohmann::json& out, const DeviceInfo& device) {
  out = {{"name", device.name},
         {"model", device.model},
         {"compute_capability", device.compute_capability},
         {"total_memory_bytes", device.total_memory_bytes},
         {"multiprocessors", device.multiprocessors}};
}

void from_json(const nlohmann::json& in, DeviceInfo& device) {
  in.at("name").get_to(device.name);
  in.at("model").get_to(device.model);
  in.at("compute_capability").get_to(device.compute_capability);
  in.at("total_memory_bytes").get_to(device.total_memory_bytes);
  in.at("multiprocessors").get_to(device.multiprocessors);
}

void to_json(nlohmann::json& out, const Environment& environment) {
  out = {{"ampbench_version", environment.ampbench_version},
         {"git_revision", environment.git_revision},
         {"timestamp_utc", environment.timestamp_utc},
         {"hostname", environment.hostname},
         {"cpu_model", environment.cpu_model},
         {"cpu_capability", environment.cpu_capability},
         {"threads", environment.threads},
         {"torch_version", environment.torch_version},
         {"torch_cuda_version", environment.torch_cuda_version},
         {"cudnn_version", environment.cudnn_version},
         {"cupti_version", environment.cupti_version},
         {"cuda_status", environment.cuda_status},
         {"devices", environment.devices}};
}

void from_json(const nlohmann::json& in, Environment& environment) {
  in.at("ampbench_version").get_to(environment.ampbench_version);
  in.at("git_revision").get_to(environment.git_revision);
  in.at("timestamp_utc").get_to(environment.timestamp_utc);
  in.at("hostname").get_to(environment.hostname);
  in.at("cpu_model").get_to(environment.cpu_model);
  in.at("cpu_capability").get_to(environment.cpu_capability);
  in.at("threads").get_to(environment.threads);
  in.at("torch_version").get_to(environment.torch_version);
  in.at("torch_cuda_version").get_to(environment.torch_cuda_version);
  in.at("cudnn_version").get_to(environment.cudnn_version);
  in.at("cupti_version").get_to(environment.cupti_version);
  in.at("cuda_status").get_to(environment.cuda_status);
  in.at("devices").get_to(environment.devices);
}

}  // namespace ampbench::reports
