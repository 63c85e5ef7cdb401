// The dtype a data-parallel run's gradients cross the all-reduce in (--grad-compression). Code
// compares the enum; the names exist only for flags, config files, report.json and printing.
#pragma once

#include <array>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>

namespace ampbench::reports {

enum class GradCompression {
  kNone,  // float32, as the gradients are
  kFp16,  // cast to float16 for the all-reduce and back (PyTorch's fp16 compression hook)
  kBf16,  // the same through bfloat16
};

inline constexpr std::array<GradCompression, 3> kGradCompressions{GradCompression::kNone, GradCompression::kFp16,
                                                                  GradCompression::kBf16};

// "none", "fp16", "bf16".
[[nodiscard]] std::string_view to_string(GradCompression compression);
// The compression of that name; nullopt for any other text.
[[nodiscard]] std::optional<GradCompression> grad_compression_named(std::string_view name);
// "none, fp16 or bf16", for error messages.
[[nodiscard]] std::string grad_compression_names();

std::ostream& operator<<(std::ostream& out, GradCompression compression);

}  // namespace ampbench::reports
