// Runs a cell in a child process (this same executable, hidden `cell-worker` command), so a crash,
// an abort or an out-of-memory kill loses only that cell, and each cell's peak memory is its own.
// The child reports progress on stderr and its CellResult as a JSON file.
#pragma once

#include <filesystem>
#include <functional>
#include <string>

#include "ampbench/harness/cell.h"
#include "ampbench/harness/cell_runner.h"
#include "ampbench/reports/report.h"

namespace ampbench::harness {

// Parent side: never throws for a failing child; the failure (exit code or signal, with the last
// line the child printed) becomes the cell's error.
[[nodiscard]] reports::CellResult run_cell_isolated(const CellSpec& spec, const std::filesystem::path& executable,
                                                    const ProgressSink& progress = {});

// Child side, behind `ampbench cell-worker --spec FILE --result FILE`: returns the exit code.
[[nodiscard]] int run_cell_worker(const std::filesystem::path& spec_path, const std::filesystem::path& result_path);

// The running executable (/proc/self/exe), to spawn cells with.
[[nodiscard]] std::filesystem::path current_executable();

}  // namespace ampbench::harness
