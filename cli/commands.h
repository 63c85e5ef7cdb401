// Each subcommand adds itself to the app and returns the action to run once parsing succeeded.
// The action returns the process exit code.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

namespace ampbench::cli {

using Action = std::function<int()>;

[[nodiscard]] Action add_env_command(CLI::App& app);
[[nodiscard]] Action add_report_command(CLI::App& app);
[[nodiscard]] Action add_compare_command(CLI::App& app);
[[nodiscard]] Action add_check_command(CLI::App& app);
[[nodiscard]] Action add_explain_command(CLI::App& app);
[[nodiscard]] Action add_history_command(CLI::App& app);
[[nodiscard]] Action add_run_command(CLI::App& app);
[[nodiscard]] Action add_list_command(CLI::App& app);
[[nodiscard]] Action add_cell_worker_command(CLI::App& app);
[[nodiscard]] Action add_cli_reference_command(CLI::App& app);

}  // namespace ampbench::cli
