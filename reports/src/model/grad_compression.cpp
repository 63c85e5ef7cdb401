#include "ampbench/reports/grad_compression.h"

#include <ostream>

#include "ampbench/reports/enum_names.h"

namespace ampbench::reports {

std::string_view to_string(GradCompression compression) {
  switch (compression) {
    case GradCompression::kNone:
      return "none";
    case GradCompression::kFp16:
      return "fp16";
    case GradCompression::kBf16:
      return "bf16";
  }
  return "unknown";
}

std::optional<GradCompression> grad_compression_named(std::string_view name) {
  return detail::value_named(name, kGradCompressions);
}

std::string grad_compression_names() { return detail::alternatives(kGradCompressions); }

std::ostream& operator<<(std::ostream& out, GradCompression compression) { return out << to_string(compression); }

}  // namespace ampbench::reports
