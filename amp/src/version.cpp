#include "ampbench/amp/version.h"

namespace ampbench::amp {

std::string_view version() noexcept { return AMPBENCH_AMP_VERSION; }

}  // namespace ampbench::amp
