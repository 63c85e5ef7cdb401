// The ampbench command line: parses, dispatches to one subcommand, and maps every error to the
// documented exit codes (0 success, 1 regression or failed cells, 2 bad usage or input, 3 an
// internal error). Also the main() of ampbench::main: a program that registers its own workloads
// (workloads/registry.h) and links it is this CLI over them and the built-in ones.
#include <CLI/CLI.hpp>

#include <filesystem>
#include <iostream>
#include <map>
#include <string>

#include "ampbench/harness/build_info.h"
#include "ampbench/reports/run_config.h"
#include "ampbench/workloads/registry.h"
#include "commands.h"
#include "exit_codes.h"

namespace {

// The program's own name: "ampbench", or the user's binary built on ampbench::main.
std::string program_name = "ampbench";

int bad_usage(const std::string& message) {
  // One line for the error, one for the usage: nothing else on stderr.
  std::string line = message.substr(0, message.find('\n'));
  std::cerr << program_name << ": error: " << line << "\n"
            << "usage: " << program_name << " <env|run|list|report|compare|check|explain|history> [options]; see '"
            << program_name << " --help'\n";
  return ampbench::cli::kExitBadInput;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ampbench;
  if (argc > 0) program_name = std::filesystem::path(argv[0]).filename().string();
  // A workload registered twice, or without a name, is bad input before any command runs.
  if (const auto errors = workloads::registration_errors(); !errors.empty()) {
    return bad_usage(errors.front() +
                     (errors.size() > 1 ? " (and " + std::to_string(errors.size() - 1) + " more)" : ""));
  }
  CLI::App app{"ampbench: what mixed precision buys a LibTorch training workload, and what it costs"};
  app.name(program_name);
  app.set_version_flag("--version", std::string("ampbench ") + std::string(harness::ampbench_version()) + " (" +
                                        std::string(harness::ampbench_git_revision()) + ")");
  app.require_subcommand(1);

  std::map<CLI::App*, cli::Action> actions;
  const auto add = [&](cli::Action action) { actions.emplace(app.get_subcommands({}).back(), std::move(action)); };
  add(cli::add_run_command(app));
  add(cli::add_list_command(app));
  add(cli::add_report_command(app));
  add(cli::add_compare_command(app));
  add(cli::add_check_command(app));
  add(cli::add_explain_command(app));
  add(cli::add_history_command(app));
  add(cli::add_env_command(app));
  add(cli::add_cell_worker_command(app));
  add(cli::add_cli_reference_command(app));

  // CLI11 would call an unknown command a missing subcommand; name the culprit instead.
  const auto is_command = [&app](const std::string& name) {
    for (const auto* command : app.get_subcommands({})) {
      if (command->get_name() == name) return true;
    }
    return false;
  };
  if (argc > 1 && argv[1][0] != '-' && !is_command(argv[1])) {
    return bad_usage(std::string("unknown command '") + argv[1] + "'");
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& help) {
    return app.exit(help);
  } catch (const CLI::CallForVersion& version) {
    return app.exit(version);
  } catch (const CLI::ParseError& error) {
    return bad_usage(error.what());
  }
  try {
    return actions.at(app.get_subcommands().front())();
  } catch (const cli::UsageError& error) {
    return bad_usage(error.what());
  } catch (const reports::SettingError& error) {
    return bad_usage(error.what());
  } catch (const std::exception& error) {
    std::cerr << "ampbench: internal error: " << error.what() << "\n";
    return cli::kExitInternalError;
  }
}
