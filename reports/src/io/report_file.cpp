// Report files: read with a size limit and strict parsing, written atomically (temp file + rename)
// so a crash or a full disk never leaves half a report where a whole one is expected.
#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>

#include "ampbench/reports/atomic_file.h"
#include "ampbench/reports/report_json.h"

namespace ampbench::reports {
namespace {

namespace fs = std::filesystem;

// The path as the user gave it, for error messages.
std::string shown(const fs::path& path) { return path.string(); }

}  // namespace

std::string read_text_file(const fs::path& path, std::uintmax_t max_bytes) {
  std::error_code error;
  const auto status = fs::status(path, error);
  if (error && error != std::errc::no_such_file_or_directory) {
    throw ReportError(shown(path) + ": cannot read: " + error.message());
  }
  if (!fs::exists(status)) throw ReportError(shown(path) + ": no such file");
  if (!fs::is_regular_file(status)) throw ReportError(shown(path) + ": not a regular file");
  const auto size = fs::file_size(path, error);
  if (error) throw ReportError(shown(path) + ": cannot read: " + error.message());
  if (size > max_bytes) {
    throw ReportError(shown(path) + ": too large for a report (" + std::to_string(size) + " bytes; the limit is " +
                      std::to_string(max_bytes) + ")");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ReportError(shown(path) + ": cannot read: " + std::strerror(errno));
  std::string text(static_cast<std::size_t>(size), '\0');
  in.read(text.data(), static_cast<std::streamsize>(size));
  if (in.gcount() != static_cast<std::streamsize>(size))
    throw ReportError(shown(path) + ": cannot read the whole file");
  return text;
}

Report read_report(const fs::path& path, std::uintmax_t max_bytes) {
  const auto json = parse_json_text(read_text_file(path, max_bytes), shown(path));
  try {
    return parse_report(json);
  } catch (const ReportError& error) {
    throw ReportError(shown(path) + ": " + error.what());
  }
}

std::string report_to_text(const Report& report) { return json_text(nlohmann::json(report), 2) + "\n"; }

void write_report_atomically(const Report& report, const fs::path& path) {
  write_file_atomically(path, report_to_text(report));
}

}  // namespace ampbench::reports
