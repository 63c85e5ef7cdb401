// `ampbench env`: what this machine offers ampbench: versions of the stack and the devices found.
#include <nlohmann/json.hpp>

#include <memory>
#include <sstream>

#include "ampbench/harness/environment_probe.h"
#include "ampbench/reports/report_json.h"
#include "commands.h"
#include "exit_codes.h"
#include "report_inputs.h"

namespace ampbench::cli {
namespace {

std::string env_text(const reports::Environment& env) {
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

}  // namespace

Action add_env_command(CLI::App& app) {
  auto* command = app.add_subcommand("env", "Print the torch, CUDA, cuDNN and CUPTI versions and the devices found");
  auto as_json = std::make_shared<bool>(false);
  command->add_flag("--json", *as_json, "Print the environment as JSON (the report's 'environment' object)");
  return [as_json] {
    const auto env = harness::probe_environment();
    print_to_stdout(*as_json ? reports::json_text(nlohmann::json(env), 2) + "\n" : env_text(env));
    return kExitSuccess;
  };
}

}  // namespace ampbench::cli
