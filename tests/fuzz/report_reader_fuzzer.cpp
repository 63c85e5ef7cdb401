// libFuzzer target for the report reader: arbitrary bytes through the reader that compare, check
// and report use (ampbench report or Google Benchmark JSON). A ReportError is the expected answer
// to bad bytes; anything else escaping (a JSON-library or standard exception), a sanitizer finding
// or a crash is a bug. A report that reads must also survive what the commands do with it: written
// back and read again (an ampbench report), summarised and rendered.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>

#include "ampbench/reports/google_benchmark.h"
#include "ampbench/reports/markdown.h"
#include "ampbench/reports/report_json.h"
#include "ampbench/reports/stats.h"
#include "ampbench/reports/table.h"

namespace {

using namespace ampbench::reports;

// What compare does with each cell's samples, less the bootstrap (2000 resamples per cell would
// make each input cost milliseconds; its cost at scale has its own test).
void summarise_cells(const Report& report) {
  for (const auto& cell : report.cells) {
    if (cell.status != CellStatus::kOk) continue;
    (void)summarize(cell.step_times_s);
    (void)mann_whitney_u(cell.step_times_s, cell.step_times_s);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  Report report;
  try {
    report = parse_report_or_google_benchmark_text(text, "input");
  } catch (const ReportError&) {
    return 0;
  }
  // ampbench writes its own reports back (report --md, a rerun's merge); Google Benchmark's output is
  // only read, and its schema is not one a report file may have.
  if (report.schema != kGoogleBenchmarkSchema) {
    const std::string written = report_to_text(report);
    try {
      (void)parse_report_or_google_benchmark_text(written, "written");
    } catch (const ReportError& error) {
      std::cerr << "a report that was read could not be read back once written: " << error.what() << "\n";
      std::abort();
    }
  }
  summarise_cells(report);
  (void)render_table(report);
  (void)render_markdown(report);
  return 0;
}
