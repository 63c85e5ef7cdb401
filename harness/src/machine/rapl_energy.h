// A CPU's energy through Linux RAPL's powercap interface: every package zone (intel-rapl:N, which
// AMD's RAPL driver also uses) and each package's DRAM subzone. Its core and uncore subzones are
// inside the package's figure and are left out.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "machine/energy_counter.h"

namespace ampbench::harness::detail {

struct RaplDomain {
  std::string name;  // the zone's `name`: "package-0", "dram"
  std::filesystem::path energy_file;
  std::uint64_t range_uj = 0;  // max_energy_range_uj + 1: where energy_uj wraps
};

// Throws std::runtime_error with a one-line reason naming the path when the folder does not exist,
// holds no intel-rapl zone, or a zone's files cannot be read.
[[nodiscard]] std::vector<RaplDomain> find_rapl_domains(const std::filesystem::path& powercap = "/sys/class/powercap");

class RaplEnergyMeter {
 public:
  explicit RaplEnergyMeter(std::vector<RaplDomain> domains);
  // Every domain's joules since the first call, summed; throws std::runtime_error naming a file
  // that cannot be read (since Linux 5.10 energy_uj is readable by root only).
  double joules();
  [[nodiscard]] std::string description() const;  // "RAPL package-0 + dram (powercap)"

 private:
  std::vector<RaplDomain> domains_;
  std::vector<CumulativeEnergy> totals_;
};

}  // namespace ampbench::harness::detail
