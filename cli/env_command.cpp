// `ampbench env`: what this machine offers ampbench: versions of the stack and the devices found.
#include <nlohmann/json.hpp>

#include <memory>

#include "ampbench/harness/environment_probe.h"
#include "ampbench/reports/environment.h"
#include "ampbench/reports/report_json.h"
#include "commands.h"
#include "exit_codes.h"
#include "report_inputs.h"

namespace ampbench::cli {

Action add_env_command(CLI::App& app) {
  auto* command = app.add_subcommand("env", "Print the torch, CUDA, cuDNN and CUPTI versions and the devices found");
  auto as_json = std::make_shared<bool>(false);
  command->add_flag("--json", *as_json, "Print the environment as JSON (the report's 'environment' object)");
  return [as_json] {
    const auto env = harness::probe_environment();
    print_to_stdout(*as_json ? reports::json_text(nlohmann::json(env), 2) + "\n"
                             : reports::render_environment_text(env));
    return kExitSuccess;
  };
}

}  // namespace ampbench::cli
