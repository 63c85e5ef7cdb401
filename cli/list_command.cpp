// `ampbench list`: the workloads, modes, presets and devices a run can use.
#include <algorithm>
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
    const auto known = workloads::known_workloads();
    // One name column for every section, wide enough for the longest name (users' included).
    std::size_t width = 14;
    for (const auto& workload : known) width = std::max(width, workload.name.size() + 2);
    const auto row = [width](std::ostringstream& out, const std::string& name, const std::string& text) {
      out << "  " << std::left << std::setw(static_cast<int>(width)) << name << text << "\n";
    };
    std::ostringstream out;
    out << "workloads\n";
    for (const auto& workload : known) row(out, workload.name, workload.summary);
    out << "modes\n";
    for (const auto& mode : harness::known_modes()) row(out, mode.name, mode.summary);
    out << "presets\n";
    for (const auto& preset : workloads::known_presets()) row(out, preset.name, preset.summary);
    out << "devices\n";
    const auto environment = harness::probe_environment();
    for (const auto& device : environment.devices) row(out, device.name, device.model);
    if (environment.cuda_status != reports::kCudaAvailable) out << "  (cuda " << environment.cuda_status << ")\n";
    print_to_stdout(out.str());
    return kExitSuccess;
  };
}

}  // namespace ampbench::cli
