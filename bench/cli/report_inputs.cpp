#include "report_inputs.h"

#include <cmath>
#include <cstdlib>

#include "ampbench/reports/atomic_file.h"
#include "ampbench/reports/google_benchmark.h"
#include "ampbench/reports/report_json.h"
#include "exit_codes.h"

namespace ampbench::cli {

reports::Report load_report_input(const std::string& path, const std::string& what) {
  try {
    return reports::read_report_or_google_benchmark(path);
  } catch (const reports::ReportError& error) {
    throw UsageError(what + " " + error.what());
  }
}

void write_output_file(const std::string& path, const std::string& content, const std::string& flag) {
  try {
    reports::write_file_atomically(path, content);
  } catch (const reports::ReportError& error) {
    throw UsageError(flag + " " + error.what());
  }
}

double parse_fraction(const std::string& text, const std::string& flag) {
  const bool percent = !text.empty() && text.back() == '%';
  const std::string number = percent ? text.substr(0, text.size() - 1) : text;
  char* end = nullptr;
  const double value = number.empty() ? NAN : std::strtod(number.c_str(), &end);
  if (number.empty() || end != number.c_str() + number.size() || !std::isfinite(value) || value < 0.0) {
    throw UsageError(flag + ": expected a non-negative fraction such as 0.05 or 5%, got '" + text + "'");
  }
  // "5" is far more likely a mistyped 5% than a 500% allowance: above 1, say it with a percent sign.
  if (!percent && value > 1.0) {
    throw UsageError(flag + ": '" + text + "' would mean " + text + "00%; write " + text + "% for " + text +
                     " percent, or " + text + "00%");
  }
  return percent ? value / 100.0 : value;
}

}  // namespace ampbench::cli
