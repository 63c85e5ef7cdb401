// Output files that appear whole or not at all: every file ampbench writes (report.json, the
// Markdown and HTML reports) goes through here, so a failed or interrupted write leaves no partial
// file behind, and a set of files (a run's three reports) is replaced as a set or not at all.
//
// What a target path may be:
// - absent, or a regular file: a temporary file is written in the same folder, fsync'ed, and
//   renamed over it (the old file's permission bits are kept);
// - a symbolic link (to a regular file, or dangling): the link is followed to its final target,
//   which is replaced as above; the link itself stays;
// - a character device or a FIFO (/dev/stdout, /dev/null, a named pipe): written through, never
//   replaced; such a write cannot be atomic. A FIFO that no process reads is refused rather than
//   waited on;
// - anything else (a directory, a socket, a block device): refused.
// Every failure is a ReportError (report_json.h) of one line naming the path as given.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace ampbench::reports {

void write_file_atomically(const std::filesystem::path& path, std::string_view content);

struct OutputFile {
  std::filesystem::path path;
  std::string content;
};

// All or nothing: checks every target, writes and fsyncs every temporary file, writes the
// pass-through targets (devices, FIFOs), and only then renames the temporaries over their targets.
// A failure before the renames removes the temporaries and leaves every old file as it was. Two
// entries that name the same file are refused.
void write_files_atomically(const std::vector<OutputFile>& files);

// The checks write_files_atomically makes before writing, without writing anything: each target is
// of a kind above, and a file can be created in its folder. For `run`, before its cells run, so a
// report.md that is a directory or a read-only folder fails in a second, not after the whole suite.
// The folders must exist.
void check_writable_targets(const std::vector<std::filesystem::path>& paths);

}  // namespace ampbench::reports
