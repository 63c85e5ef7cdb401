// `ampbench list`: the workloads, modes, presets and devices a run can use.
#include <iomanip>
#include <sstream>

#include "ampbench/harness/environment_probe.h"
#include "ampbench/harness/mode.h"
#include "ampbench/workloads/preset.h"
#include "ampbench/workloads/registry.h"
#include "commands.h"
#include "exit_codes.h"
#include "report_inputs.h"

namespace ampbench::cli {

Action add_list_command(CLI::App& app) {
  app.add_subcommand("list", "List workloads, modes, presets and devices");
  return [] {
    std::ostringstream out;
    out << "workloads\n";
    for (const auto& workload : workloads::known_workloads()) {
      out << "  " << std::left << std::setw(14) << workload.name << workload.summary << "\n";
    }
    out << "modes\n";
    for (const auto& mode : harness::known_modes()) {
      out << "  " << std::left << std::setw(14) << mode.name << mode.summary << "\n";
    }
    out << "presets\n";
    for (const auto& preset : workloads::known_presets()) {
      out << "  " << std::left << std::setw(14) << preset.name << preset.summary << "\n";
    }
    out << "devices\n";
    const auto environment = harness::probe_environment();
    for (const auto& device : environment.devices)
      out << "  " << std::left << std::setw(14) << device.name << device.model << "\n";
    if (environment.cuda_status != "available") out << "  (cuda " << environment.cuda_status << ")\n";
    print_to_stdout(out.str());
    return kExitSuccess;
  };
}

}  // namespace ampbench::cli
