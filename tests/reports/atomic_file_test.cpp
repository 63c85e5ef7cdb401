// The atomic writer: links are followed and kept, devices and FIFOs written through and never
// replaced, directories refused, a set of files written all or nothing, and targets checkable
// before any work.
#include "ampbench/reports/atomic_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>
#include <thread>

#include "ampbench/reports/report_json.h"
#include "support/scratch_dir.h"

namespace {

using namespace ampbench::reports;
using ampbench::testing::ScratchDir;
namespace fs = std::filesystem;

void write_text(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }

std::string read_text(const fs::path& path) {
  std::ostringstream text;
  text << std::ifstream(path).rdbuf();
  return text.str();
}

std::string write_error(const std::vector<OutputFile>& files) {
  try {
    write_files_atomically(files);
  } catch (const ReportError& error) {
    return error.what();
  }
  return "(no error)";
}

std::string check_error(const std::vector<fs::path>& paths) {
  try {
    check_writable_targets(paths);
  } catch (const ReportError& error) {
    return error.what();
  }
  return "(no error)";
}

int entries(const fs::path& dir) {
  int count = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir)) ++count;
  return count;
}

TEST(AtomicFile, ASymlinkIsFollowedAndKept) {
  ScratchDir dir;
  fs::create_directory(dir / "real");
  write_text(dir / "real" / "report.md", "old");
  fs::create_symlink("real/report.md", dir / "link.md");
  write_file_atomically(dir / "link.md", "new");
  EXPECT_TRUE(fs::is_symlink(dir / "link.md"));
  EXPECT_EQ(read_text(dir / "real" / "report.md"), "new");
  EXPECT_EQ(entries(dir / "real"), 1);  // no temporary left beside the target
  // A dangling link: its target is created, the link stays.
  fs::create_symlink("real/new.md", dir / "dangling.md");
  write_file_atomically(dir / "dangling.md", "created");
  EXPECT_TRUE(fs::is_symlink(dir / "dangling.md"));
  EXPECT_EQ(read_text(dir / "real" / "new.md"), "created");
}

TEST(AtomicFile, CharacterDevicesAreWrittenThroughNeverReplaced) {
  ScratchDir dir;
  fs::create_symlink("/dev/null", dir / "null.md");
  write_file_atomically(dir / "null.md", "discarded");
  EXPECT_TRUE(fs::is_symlink(dir / "null.md"));
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  EXPECT_EQ(write_error({{"/dev/full", "x"}}), "/dev/full: cannot write: no space left on the device");
  EXPECT_TRUE(fs::is_character_file("/dev/full"));
}

TEST(AtomicFile, AFifoIsWrittenThroughWhenReadAndRefusedWhenNot) {
  ScratchDir dir;
  const auto fifo = dir / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // No reader: refused at once rather than blocking the command forever.
  EXPECT_EQ(write_error({{fifo, "x"}}), fifo.string() + ": cannot write: no process is reading from it");
  std::string received;
  std::thread reader([&] { received = read_text(fifo); });
  // The reader's open blocks until a writer opens: retry until it is there.
  for (int attempt = 0; attempt < 500 && write_error({{fifo, "through the pipe"}}) != "(no error)"; ++attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  reader.join();
  EXPECT_EQ(received, "through the pipe");
  EXPECT_TRUE(fs::is_fifo(fifo));
}

TEST(AtomicFile, DirectoriesAndOverlongNamesAreRefusedByName) {
  ScratchDir dir;
  fs::create_directory(dir / "report.md");
  EXPECT_EQ(write_error({{dir / "report.md", "x"}}),
            (dir / "report.md").string() + ": cannot write: it is a directory");
  const auto long_name = dir / std::string(300, 'a');
  EXPECT_EQ(write_error({{long_name, "x"}}), long_name.string() + ": cannot write: File name too long");
  EXPECT_EQ(entries(dir.path()), 1);
  // A name at the 255-byte limit is written: its temporary's name is cut to fit.
  write_file_atomically(dir / std::string(255, 'b'), "x");
  EXPECT_EQ(entries(dir.path()), 2);
}

TEST(AtomicFile, PermissionBitsOfTheReplacedFileAreKept) {
  ScratchDir dir;
  write_text(dir / "r.json", "old");
  fs::permissions(dir / "r.json", fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  write_file_atomically(dir / "r.json", "new");
  EXPECT_EQ(fs::status(dir / "r.json").permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
}

TEST(AtomicFileSet, AFailureLeavesEveryOldFileAndNoTemporary) {
  ScratchDir dir;
  write_text(dir / "report.json", "old json");
  write_text(dir / "report.md", "old md");
  // The third target's folder is missing: found while writing the temporaries.
  EXPECT_EQ(write_error({{dir / "report.json", "new json"},
                         {dir / "report.md", "new md"},
                         {dir / "missing" / "report.html", "new html"}}),
            (dir / "missing" / "report.html").string() + ": cannot write: No such file or directory");
  EXPECT_EQ(read_text(dir / "report.json"), "old json");
  EXPECT_EQ(read_text(dir / "report.md"), "old md");
  EXPECT_EQ(entries(dir.path()), 2);
  // A device that fails (a full disk) after the temporaries are written: still nothing replaced.
  EXPECT_EQ(write_error({{dir / "report.json", "new json"}, {"/dev/full", "x"}}),
            "/dev/full: cannot write: no space left on the device");
  EXPECT_EQ(read_text(dir / "report.json"), "old json");
  EXPECT_EQ(entries(dir.path()), 2);
}

TEST(AtomicFileSet, EveryFileIsReplacedOnSuccess) {
  ScratchDir dir;
  write_text(dir / "a", "old a");
  write_files_atomically({{dir / "a", "new a"}, {dir / "b", "new b"}});
  EXPECT_EQ(read_text(dir / "a"), "new a");
  EXPECT_EQ(read_text(dir / "b"), "new b");
  EXPECT_EQ(entries(dir.path()), 2);
}

TEST(AtomicFileSet, TheSameFileTwiceIsRefused) {
  ScratchDir dir;
  write_text(dir / "a", "old");
  fs::create_symlink("a", dir / "also-a");
  EXPECT_EQ(write_error({{dir / "a", "1"}, {dir / "also-a", "2"}}),
            (dir / "also-a").string() + ": cannot write: the same file is named twice among the outputs");
  EXPECT_EQ(read_text(dir / "a"), "old");
}

TEST(CheckWritableTargets, FindsWhatWouldFailWithoutWriting) {
  ScratchDir dir;
  write_text(dir / "report.json", "old");
  fs::create_directory(dir / "report.md");
  EXPECT_EQ(check_error({dir / "report.json", dir / "report.md", dir / "report.html"}),
            (dir / "report.md").string() + ": cannot write: it is a directory");
  EXPECT_EQ(check_error({dir / "nowhere" / "report.html"}),
            (dir / "nowhere" / "report.html").string() + ": cannot write: No such file or directory");
  EXPECT_EQ(check_error({dir / "report.json", dir / "report.html", "/dev/null"}), "(no error)");
  EXPECT_EQ(read_text(dir / "report.json"), "old");
  EXPECT_EQ(entries(dir.path()), 2);  // no probe file left behind
}

}  // namespace
