// What report, compare and check share: reading a report (or Google Benchmark JSON) and writing an
// output file with errors that name the file and exit 2, and parsing thresholds such as "5%".
#pragma once

#include <string>

#include "ampbench/reports/report.h"

namespace ampbench::cli {

// Reads an ampbench report or Google Benchmark JSON; any problem is a UsageError naming the file
// (and the field), e.g. "--baseline base.json: cells[2].mode: expected a string, got number".
[[nodiscard]] reports::Report load_report_input(const std::string& path, const std::string& what);

// Writes content atomically; a UsageError naming the flag and file when it cannot.
void write_output_file(const std::string& path, const std::string& content, const std::string& flag);

// "5%" -> 0.05, "0.05" -> 0.05; a UsageError naming the flag for anything else, a negative value,
// or a bare number above 1 (a forgotten percent sign).
[[nodiscard]] double parse_fraction(const std::string& text, const std::string& flag);

}  // namespace ampbench::cli
