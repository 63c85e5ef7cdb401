// `ampbench list`: the workloads, modes, presets and devices a run can use.
#include <iomanip>
#include <iostream>

#include "ampbench/harness/environment_probe.h"
#include "ampbench/harness/mode.h"
#include "ampbench/workloads/registry.h"
#include "commands.h"
#include "exit_codes.h"

namespace ampbench::cli {

Action add_list_command(CLI::App& app) {
  app.add_subcommand("list", "List workloads, modes, presets and devices");
  return [] {
    std::cout << "workloads\n";
    for (const auto& workload : workloads::known_workloads()) {
      std::cout << "  " << std::left << std::setw(14) << workload.name << workload.summary << "\n";
    }
    std::cout << "modes\n";
    for (const auto& mode : harness::known_modes()) {
      std::cout << "  " << std::left << std::setw(14) << mode.name << mode.summary << "\n";
    }
    std::cout << "presets\n"
              << "  seed          the classic tutorials' sizes\n"
              << "  default       sized for a 2-core CPU: the whole default suite in about 2 minutes\n"
              << "  large         sized to keep a modern GPU busy\n"
              << "devices\n";
    const auto environment = harness::probe_environment();
    for (const auto& device : environment.devices)
      std::cout << "  " << std::left << std::setw(14) << device.name << device.model << "\n";
    if (environment.cuda_status != "available") std::cout << "  (cuda " << environment.cuda_status << ")\n";
    return kExitSuccess;
  };
}

}  // namespace ampbench::cli
