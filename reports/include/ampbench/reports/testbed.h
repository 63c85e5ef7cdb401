// A testbed as the history's documents show it: the machine and software whose runs may be
// compared with each other, named, fingerprinted and described by its facts. The history makes
// them from reports (history/testbed.h); the renderers print them (history check, history show).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace ampbench::reports {

struct Testbed {
  std::string name;         // "cpu-AMD-EPYC-4f2a9c01b7" by default, or --testbed NAME
  std::string fingerprint;  // 16 hex digits: FNV-1a 64 of the facts below, in order
  // The facts, in a fixed order, as (name, value): cpu_model, cpu_flags, cpu_capability, gpus (model
  // and compute capability of every GPU a cell ran on), torch_version, torch_cuda_version,
  // cudnn_version, threads, allocator, presets, ranks, devices.
  std::vector<std::pair<std::string, std::string>> facts;
};

// One fact in which a run differs from the testbed it is filed or judged under: a name given with
// --testbed groups runs whatever their facts, which the user should then see.
struct FactDifference {
  std::string fact;
  std::string testbed_value;  // "(none)" where one side lacks the fact
  std::string run_value;
};

// "threads 2 there, 1 in this run; torch_version ..." for a note.
[[nodiscard]] std::string describe_differences(const std::vector<FactDifference>& differences);

// "note: testbed NAME was made from other facts (what describe_differences says)": the start of what add,
// import and check print for a run filed or judged by name under a testbed of other facts.
[[nodiscard]] std::string other_facts_note(const std::string& testbed_name,
                                           const std::vector<FactDifference>& differences);

}  // namespace ampbench::reports
