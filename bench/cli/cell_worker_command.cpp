// `ampbench cell-worker`: internal, the child process of an isolated cell (harness/isolated_cell.h).
#include "ampbench/harness/isolated_cell.h"
#include "commands.h"

namespace ampbench::cli {

Action add_cell_worker_command(CLI::App& app) {
  // Hidden from --help: users never call it.
  auto* command = app.add_subcommand("cell-worker", "");
  command->group("");
  auto spec = std::make_shared<std::string>();
  auto result = std::make_shared<std::string>();
  command->add_option("--spec", *spec)->required();
  command->add_option("--result", *result)->required();
  return [spec, result] { return harness::run_cell_worker(*spec, *result); };
}

}  // namespace ampbench::cli
