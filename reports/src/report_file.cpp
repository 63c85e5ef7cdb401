// Report files: read with a size limit and strict parsing, written atomically (temp file + rename)
// so a crash or a full disk never leaves half a report where a whole one is expected.
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>
#include <system_error>

#include "ampbench/reports/atomic_file.h"
#include "ampbench/reports/report_json.h"

namespace ampbench::reports {
namespace {

namespace fs = std::filesystem;

// The path as the user gave it, for error messages.
std::string shown(const fs::path& path) { return path.string(); }

// nlohmann's messages start with "[json.exception.parse_error.101] "; keep what a person reads.
std::string parse_error_text(const nlohmann::json::parse_error& error) {
  std::string text = error.what();
  if (const auto end = text.find("] "); text.rfind("[json.exception.", 0) == 0 && end != std::string::npos) {
    text.erase(0, end + 2);
  }
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return text;
}

fs::path temporary_sibling(const fs::path& path) {
  static std::atomic<unsigned> counter{0};
  return path.parent_path() /
         ("." + path.filename().string() + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
}

}  // namespace

nlohmann::json parse_json_text(const std::string& text, const std::string& source) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& error) {
    throw ReportError(source + ": not valid JSON: " + parse_error_text(error));
  }
}

std::string read_text_file(const fs::path& path, std::uintmax_t max_bytes) {
  std::error_code error;
  const auto status = fs::status(path, error);
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

std::string report_to_text(const Report& report) { return nlohmann::json(report).dump(2) + "\n"; }

void write_report_atomically(const Report& report, const fs::path& path) {
  write_file_atomically(path, report_to_text(report));
}

void write_file_atomically(const fs::path& path, std::string_view content) {
  const fs::path temporary = temporary_sibling(path);
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) throw ReportError(shown(path) + ": cannot write: " + std::strerror(errno));
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    out.close();
    if (!out) {
      std::error_code ignored;
      fs::remove(temporary, ignored);
      throw ReportError(shown(path) + ": cannot write: the write failed (disk full?)");
    }
  }
  std::error_code error;
  fs::rename(temporary, path, error);
  if (error) {
    std::error_code ignored;
    fs::remove(temporary, ignored);
    throw ReportError(shown(path) + ": cannot write: " + error.message());
  }
}

}  // namespace ampbench::reports
