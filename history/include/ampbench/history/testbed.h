// A testbed: the machine and software whose runs may be compared with each other. Its fingerprint
// hashes stable facts only (never a clock reading, never the hostname alone): two CI runners of
// the same kind share a testbed, and a runner whose driver or torch changed starts a new one.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "ampbench/reports/report.h"
#include "ampbench/reports/testbed.h"

namespace ampbench::history {

// The testbed and a fact it differs in are the documents' types (reports/testbed.h): the history
// makes them, the renderers print them.
using reports::FactDifference;
using reports::Testbed;

// The report's testbed; `name` overrides the default name (the fingerprint stays the facts').
[[nodiscard]] Testbed testbed_of(const reports::Report& report, const std::string& name = "");

// The facts in which `run` differs from `testbed`, in the testbed's order of facts; empty when the
// fingerprints agree.
[[nodiscard]] std::vector<FactDifference> differing_facts(const Testbed& testbed, const Testbed& run);

// The fingerprint of these facts: FNV-1a 64 of "name=value\n" for each, in order.
[[nodiscard]] std::string fingerprint_of(const std::vector<std::pair<std::string, std::string>>& facts);

// The facts as the store and its export keep them: a JSON array of [name, value] pairs, in order.
[[nodiscard]] nlohmann::json facts_json(const Testbed& testbed);

}  // namespace ampbench::history
