// `ampbench cli-reference` (hidden): the command-line reference as Markdown, made from the same
// CLI11 commands and options that `--help` prints, through CLI11's own formatter, so the page
// (docs/cli.md) cannot describe a flag differently from --help; a test compares the two.
#include <iostream>
#include <string>

#include "commands.h"

namespace ampbench::cli {
namespace {

// A table cell: no line breaks, no column separators.
std::string cell_text(std::string text) {
  std::string out;
  for (const char c : text) {
    if (c == '\n') {
      out += ' ';
    } else {
      if (c == '|') out += '\\';
      out += c;
    }
  }
  return out;
}

std::string trimmed(const std::string& text) {
  const auto first = text.find_first_not_of(' ');
  return first == std::string::npos ? "" : text.substr(first, text.find_last_not_of(' ') - first + 1);
}

// `prefix` is the program, or the program and the parent command for nested commands
// ("ampbench history"), whose sections follow their parent's.
std::string command_section(const CLI::App& command, const std::string& prefix) {
  const CLI::Formatter formatter;
  const auto name = prefix + " " + command.get_name();
  std::string out = "## " + name + "\n\n" + command.get_description() + "\n\n```\n" +
                    trimmed(formatter.make_usage(&command, name)) + "```\n";
  std::string rows;
  for (const auto* option : command.get_options()) {
    if (option == command.get_help_ptr()) continue;
    rows += "| `" + cell_text(formatter.make_option_name(option, !option->nonpositional())) + "` | " +
            cell_text(trimmed(formatter.make_option_opts(option))) + " | " +
            cell_text(formatter.make_option_desc(option)) + " |\n";
  }
  if (!rows.empty()) out += "\n| option | value | what it does |\n|---|---|---|\n" + rows;
  for (const auto* subcommand : command.get_subcommands({})) out += "\n" + command_section(*subcommand, name);
  return out;
}

}  // namespace

Action add_cli_reference_command(CLI::App& app) {
  auto* command = app.add_subcommand("cli-reference", "");
  command->group("");  // not a user's command: it writes docs/cli.md
  return [&app] {
    const auto program = app.get_name();
    std::cout << "<!-- Made by `" << program << " cli-reference > docs/cli.md` from the commands' own options, the "
              << "source of --help; the test cli_reference_is_current fails when they differ. -->\n"
              << "# Command-line reference\n\n"
              << app.get_description() << ". Every command prints this with `--help`; what each setting of `run` "
              << "means is in [running.md](running.md#ampbench-run), the exit codes in "
              << "[failures.md](failures.md#exit-codes).\n\n";
    std::string sections;
    for (const auto* subcommand : app.get_subcommands({})) {
      if (subcommand->get_group().empty()) continue;
      sections += (sections.empty() ? "" : "\n") + command_section(*subcommand, program);
    }
    std::cout << sections;
    return 0;
  };
}

}  // namespace ampbench::cli
