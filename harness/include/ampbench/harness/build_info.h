// What was built: the version and the git revision (with -dirty for uncommitted changes), stamped
// at build time so a report always names the code that produced it.
#pragma once

#include <string_view>

namespace ampbench::harness {

[[nodiscard]] std::string_view ampbench_version();
[[nodiscard]] std::string_view ampbench_git_revision();

}  // namespace ampbench::harness
