// Writes the fuzz target's seed corpus: the test suite's sample report (every field filled, a
// failed cell, a GPU cell), a minimal one and one of two ranks, as `ampbench run` writes them.
#include <filesystem>
#include <iostream>

#include "ampbench/reports/atomic_file.h"
#include "ampbench/reports/report_json.h"
#include "sample_report.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: write_seed_corpus DIR\n";
    return 2;
  }
  namespace reports = ampbench::reports;
  const std::filesystem::path dir = argv[1];
  std::filesystem::create_directories(dir);
  auto sample = ampbench::testing::make_sample_report();
  auto with_gpu = sample;
  with_gpu.cells.push_back(ampbench::testing::sample_gpu_cell());
  reports::Report minimal;
  minimal.cells = {ampbench::testing::sample_cell("simple_net", "fp32", 0.001)};
  reports::write_files_atomically(
      {{dir / "sample_report.json", reports::report_to_text(sample)},
       {dir / "gpu_report.json", reports::report_to_text(with_gpu)},
       {dir / "minimal_report.json", reports::report_to_text(minimal)},
       {dir / "data_parallel_report.json", reports::report_to_text(ampbench::testing::make_data_parallel_report())}});
  return 0;
}
