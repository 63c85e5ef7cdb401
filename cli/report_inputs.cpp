#include "report_inputs.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <regex>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "ampbench/reports/atomic_file.h"
#include "ampbench/reports/google_benchmark.h"
#include "ampbench/reports/report_json.h"
#include "exit_codes.h"

namespace ampbench::cli {
namespace {

// strtod also takes hex, "nan", "inf" and leading spaces; a threshold is plain decimal.
bool parse_decimal(const std::string& text, double& value) {
  static const std::regex kDecimal(R"([+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?)");
  if (!std::regex_match(text, kDecimal)) return false;
  value = std::strtod(text.c_str(), nullptr);
  return std::isfinite(value);
}

}  // namespace

reports::Report load_report_input(const std::string& path, const std::string& what) {
  try {
    return reports::read_report_or_google_benchmark(path);
  } catch (const reports::ReportError& error) {
    throw UsageError(what + " " + error.what());
  }
}

void write_output_files(const std::vector<OutputFlag>& outputs) {
  std::vector<reports::OutputFile> files;
  for (const auto& output : outputs) {
    if (output.path.empty()) continue;
    try {
      reports::check_writable_targets({output.path});
    } catch (const reports::ReportError& error) {
      throw UsageError(output.flag + " " + error.what());
    }
    files.push_back({output.path, output.content});
  }
  try {
    reports::write_files_atomically(files);
  } catch (const reports::ReportError& error) {
    throw UsageError(error.what());
  }
}

void write_output_file(const std::string& path, const std::string& content, const std::string& flag) {
  write_output_files({{flag, path, content}});
}

void print_to_stdout(const std::string& text) {
  errno = 0;
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0) {
    const int error = errno;
    std::clearerr(stdout);
    throw UsageError(std::string("stdout: cannot write: ") + (error == ENOSPC ? "no space left on the device"
                                                              : error != 0    ? std::strerror(error)
                                                                              : "failed"));
  }
}

void require_text_or_json(const std::string& format) {
  if (format != "text" && format != "json") {
    throw UsageError("--format: expected 'text' or 'json', got '" + format + "'");
  }
}

double parse_fraction(const std::string& text, const std::string& flag) {
  const bool percent = !text.empty() && text.back() == '%';
  const std::string number = percent ? text.substr(0, text.size() - 1) : text;
  double value = 0.0;
  if (!parse_decimal(number, value) || value < 0.0) {
    throw UsageError(flag + ": expected a non-negative fraction such as 0.05 or 5%, got '" + text + "'");
  }
  // "5" is far more likely a mistyped 5% than a 500% allowance: above 1, say it with a percent sign.
  if (!percent && value > 1.0) {
    throw UsageError(flag + ": '" + text + "' would mean " + text + "00%; write " + text + "% for " + text +
                     " percent, or " + text + "00%");
  }
  return percent ? value / 100.0 : value;
}

double parse_number_in(const std::string& text, const std::string& flag, double above, double at_most) {
  double value = 0.0;
  if (!parse_decimal(text, value) || !(value > above) || !(value <= at_most)) {
    char range[96];
    std::snprintf(range, sizeof range, "a number above %g and at most %g", above, at_most);
    throw UsageError(flag + ": expected " + range + ", got '" + text + "'");
  }
  return value;
}

int with_input_errors_as_usage_errors(const std::function<int()>& body) {
  try {
    return body();
  } catch (const reports::ReportError& error) {
    throw UsageError(error.what());
  } catch (const std::filesystem::filesystem_error& error) {
    throw UsageError(error.what());  // names the path(s)
  } catch (const nlohmann::json::exception& error) {
    throw UsageError(std::string("JSON: ") + error.what());
  } catch (const std::invalid_argument& error) {
    throw UsageError(error.what());
  }
}

}  // namespace ampbench::cli
