"""Documents are rendered in one place: reports/src/render.

The history decides verdicts and builds its documents; the CLI parses flags and calls. Neither
formats a figure or lays out a table: a number's digits, a percentage or a Markdown row written in
history/ or cli/ would be a second spelling of what the renderers already say, free to drift from
the others. The CLI's own reference (cli_reference_command.cpp writes docs/cli.md from the option
table) and `list`'s column of names are the CLI describing itself, not a document.
"""

import re
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# What formatting looks like in C++: stream precision and fixed notation, the renderers' number
# formatters and table types, Markdown rows and HTML escaping.
FORMATTING = re.compile(
    r"std::setprecision|std::fixed|std::scientific|\bformat_(percent|duration|ratio|bytes|general|p_value|"
    r"small_fraction|change_ci|count)\b|\b(text|markdown|html)_table\(|detail::Table\b|html_escaped|\"\| ")

# The CLI describing its own options and vocabulary.
ALLOWED = {"cli/cli_reference_command.cpp", "cli/list_command.cpp"}


def sources():
    for folder in ("history", "cli"):
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix in (".cpp", ".h"):
                yield path.relative_to(ROOT).as_posix(), path.read_text()


def formatting_lines(text):
    return [line.strip() for line in text.splitlines() if FORMATTING.search(line)]


class RenderLayer(unittest.TestCase):
    def test_history_and_the_cli_format_nothing(self):
        found = {name: formatting_lines(text) for name, text in sources() if name not in ALLOWED}
        self.assertEqual({name: lines for name, lines in found.items() if lines}, {})

    def test_the_pattern_sees_formatting(self):
        # The check must be able to fail: each kind of formatting it looks for is caught.
        for line in ('out << std::setprecision(2) << p;', 'reports::format_percent(change, true)',
                     'detail::Table table({"cell"});', 'out += detail::markdown_table(table);',
                     'out += "| " + cell + " |";'):
            self.assertEqual(formatting_lines(line), [line], line)
        self.assertEqual(formatting_lines('print_to_stdout(reports::render_history_text(shown));'), [])


if __name__ == "__main__":
    unittest.main()
