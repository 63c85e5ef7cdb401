// What report, compare and check share: reading a report (or Google Benchmark JSON) and writing
// output files and stdout with errors that name the file and exit 2, parsing thresholds such as
// "5%", and turning the exceptions of the libraries underneath into exit 2 naming the culprit.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "ampbench/reports/report.h"

namespace ampbench::cli {

// Reads an ampbench report or Google Benchmark JSON; any problem is a UsageError naming the file
// (and the field), e.g. "--baseline base.json: cells[2].mode: expected a string, got number".
[[nodiscard]] reports::Report load_report_input(const std::string& path, const std::string& what);

// An output file and the flag that named it.
struct OutputFlag {
  std::string flag;
  std::string path;
  std::string content;
};

// Writes the files as a set (reports::write_files_atomically): every target is checked first (a
// UsageError naming the flag and file), then all are written or none. Empty paths are skipped.
void write_output_files(const std::vector<OutputFlag>& outputs);
void write_output_file(const std::string& path, const std::string& content, const std::string& flag);

// Writes text to stdout and flushes it; a UsageError ("stdout: cannot write: ...") when it cannot
// (a full disk, a closed pipe, > /dev/full): a command whose output is lost must not exit 0.
void print_to_stdout(const std::string& text);

// A --format value: "text" or "json"; a UsageError naming the flag otherwise. Checked before any
// input is read.
void require_text_or_json(const std::string& format);

// "5%" -> 0.05, "0.05" -> 0.05; a UsageError naming the flag for anything else, a negative value,
// or a bare number above 1 (a forgotten percent sign).
[[nodiscard]] double parse_fraction(const std::string& text, const std::string& flag);

// A plain decimal number ("0.01", "1e-3"; no hex, no nan or inf) in (above, at_most]; a UsageError
// naming the flag and the range otherwise.
[[nodiscard]] double parse_number_in(const std::string& text, const std::string& flag, double above, double at_most);

// Runs a report command's body with every exception of the libraries it uses (the reports
// library's, the JSON library's, std::filesystem's, the statistics' std::invalid_argument) turned
// into a UsageError with its message, so bad input exits 2, never 1 (the regression code).
[[nodiscard]] int with_input_errors_as_usage_errors(const std::function<int()>& body);

}  // namespace ampbench::cli
