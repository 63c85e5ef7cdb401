// A testbed: the machine and software whose runs may be compared with each other. Its fingerprint
// hashes stable facts only (never a clock reading, never the hostname alone): two CI runners of
// the same kind share a testbed, and a runner whose driver or torch changed starts a new one.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "ampbench/reports/report.h"

namespace ampbench::history {

struct Testbed {
  std::string name;         // "cpu-AMD-EPYC-4f2a9c01b7" by default, or --testbed NAME
  std::string fingerprint;  // 16 hex digits: FNV-1a 64 of the facts below, in order
  // The facts, in a fixed order, as (name, value): cpu_model, cpu_flags, cpu_capability, gpus (model
  // and compute capability of every GPU a cell ran on), torch_version, torch_cuda_version,
  // cudnn_version, threads, allocator, presets, ranks, devices.
  std::vector<std::pair<std::string, std::string>> facts;
};

// The report's testbed; `name` overrides the default name (the fingerprint stays the facts').
[[nodiscard]] Testbed testbed_of(const reports::Report& report, const std::string& name = "");

// One fact in which a run differs from the testbed it is filed or judged under: a name given with
// --testbed groups runs whatever their facts, which the user should then see.
struct FactDifference {
  std::string fact;
  std::string testbed_value;  // "(none)" where one side lacks the fact
  std::string run_value;
};

// The facts in which `run` differs from `testbed`, in the testbed's order of facts; empty when the
// fingerprints agree.
[[nodiscard]] std::vector<FactDifference> differing_facts(const Testbed& testbed, const Testbed& run);

// "threads 2 there, 1 in this run; torch_version ..." for a note.
[[nodiscard]] std::string describe(const std::vector<FactDifference>& differences);

// "note: testbed NAME was made from other facts (what describe says)": the start of what add,
// import and check print for a run filed or judged by name under a testbed of other facts.
[[nodiscard]] std::string other_facts_note(const std::string& testbed_name,
                                           const std::vector<FactDifference>& differences);

// The fingerprint of these facts: FNV-1a 64 of "name=value\n" for each, in order.
[[nodiscard]] std::string fingerprint_of(const std::vector<std::pair<std::string, std::string>>& facts);

// The facts as the store and its export keep them: a JSON array of [name, value] pairs, in order.
[[nodiscard]] nlohmann::json facts_json(const Testbed& testbed);

}  // namespace ampbench::history
