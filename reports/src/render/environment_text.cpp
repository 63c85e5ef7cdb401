// `ampbench env`'s text: the stack's versions and the devices found (environment.h).
#include <sstream>

#include "ampbench/reports/environment.h"

namespace ampbench::reports {

std::string render_environment_text(const Environment& env) {
  const auto or_none = [](const std::string& text) { return text.empty() ? std::string("none") : text; };
  std::ostringstream out;
  out << "ampbench        " << env.ampbench_version << " (" << env.git_revision << ")\n"
      << "torch           " << env.torch_version << " (" << env.torch_library << ")\n"
      << "torch CUDA      " << or_none(env.torch_cuda_version) << "\n"
      << "cuDNN           " << or_none(env.cudnn_version) << "\n"
      << "CUPTI           " << or_none(env.cupti_version) << "\n"
      << "CPU             " << env.cpu_model << " (" << env.cpu_capability << ", " << env.threads << " threads)\n"
      << "CUDA            " << env.cuda_status << "\n"
      << "devices\n";
  for (const auto& device : env.devices) {
    out << "  " << device.name << "  " << device.model;
    if (!device.compute_capability.empty()) out << "  sm_" << device.compute_capability;
    out << "  " << device.total_memory_bytes / (1024 * 1024) << " MiB";
    if (!device.compute_mode.empty()) out << "  compute mode " << device.compute_mode;
    out << "\n";
  }
  return out.str();
}

}  // namespace ampbench::reports
