// How a run executes each training step (--graphs): eagerly, op by op as LibTorch issues them, or
// replayed from a CUDA graph captured once after warm-up. Code compares the enum; the names exist
// only for flags, config files, report.json and printing.
#pragma once

#include <array>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>

namespace ampbench::reports {

enum class GraphExecution {
  kOff,   // every cell eager
  kOn,    // every cell graphed
  kBoth,  // each mode twice, eager and graphed, in the same interleaved rounds
};

inline constexpr std::array<GraphExecution, 3> kGraphExecutions{GraphExecution::kOff, GraphExecution::kOn,
                                                                GraphExecution::kBoth};

// "off", "on", "both".
[[nodiscard]] std::string_view to_string(GraphExecution execution);
// The setting of that name; nullopt for any other text.
[[nodiscard]] std::optional<GraphExecution> graph_execution_named(std::string_view name);
// "off, on or both", for error messages.
[[nodiscard]] std::string graph_execution_names();

std::ostream& operator<<(std::ostream& out, GraphExecution execution);

// A graphed cell's mode is its eager mode's name with this suffix: "bf16-graphed". Everything that
// names cells (labels, compare, check, the history) then tells the two executions apart.
inline constexpr std::string_view kGraphedSuffix = "-graphed";
[[nodiscard]] bool is_graphed_mode(std::string_view mode);
// "bf16" for "bf16-graphed"; the name itself for an eager mode.
[[nodiscard]] std::string eager_mode_of(std::string_view mode);
[[nodiscard]] std::string graphed_mode_of(std::string_view mode);  // "bf16" -> "bf16-graphed"
// The mode a cell of `mode` is compared with: fp32 for an eager cell, fp32-graphed for a graphed one.
[[nodiscard]] std::string reference_mode_for(std::string_view mode);

}  // namespace ampbench::reports
