// Output files that appear whole or not at all: every file ampbench writes (report.json, the
// Markdown and HTML reports) goes through here, so a failed or interrupted write leaves no partial
// file behind.
#pragma once

#include <filesystem>
#include <string_view>

namespace ampbench::reports {

// Writes content to a temporary file in path's folder, then renames it to path. Throws
// ReportError (report_json.h) naming the path when the folder is missing or not writable, or the
// write fails; the temporary file is removed in that case.
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

}  // namespace ampbench::reports
