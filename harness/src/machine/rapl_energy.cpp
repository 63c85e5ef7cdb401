#include "machine/rapl_energy.h"

#include <algorithm>
#include <fstream>
#include <stdexcept>

namespace ampbench::harness::detail {
namespace {

namespace fs = std::filesystem;

std::string read_line(const fs::path& file) {
  std::ifstream in(file);
  std::string line;
  if (!in || !std::getline(in, line)) {
    throw std::runtime_error(file.string() +
                             ": not readable by this user (since Linux 5.10 RAPL's energy files are root's only)");
  }
  return line;
}

std::uint64_t read_count(const fs::path& file) {
  const auto text = read_line(file);
  try {
    return std::stoull(text);
  } catch (const std::exception&) {
    throw std::runtime_error(file.string() + ": expected a count, got \"" + text + "\"");
  }
}

RaplDomain domain_of(const fs::path& zone) {
  RaplDomain domain{read_line(zone / "name"), zone / "energy_uj", 0};
  domain.range_uj = read_count(zone / "max_energy_range_uj") + 1;
  (void)read_count(domain.energy_file);  // refused here, not mid-run
  return domain;
}

bool is_zone(const fs::path& path, std::size_t colons) {
  const auto name = path.filename().string();
  return name.rfind("intel-rapl:", 0) == 0 &&
         static_cast<std::size_t>(std::count(name.begin(), name.end(), ':')) == colons;
}

std::vector<fs::path> sorted_entries(const fs::path& folder) {
  std::vector<fs::path> entries;
  for (const auto& entry : fs::directory_iterator(folder)) entries.push_back(entry.path());
  std::sort(entries.begin(), entries.end());
  return entries;
}

}  // namespace

std::vector<RaplDomain> find_rapl_domains(const fs::path& powercap) {
  std::error_code error;
  if (!fs::is_directory(powercap, error)) {
    throw std::runtime_error(powercap.string() + ": no such folder: the kernel exposes no powercap (RAPL) interface");
  }
  std::vector<RaplDomain> domains;
  for (const auto& zone : sorted_entries(powercap)) {
    if (!is_zone(zone, 1)) continue;  // intel-rapl:N; intel-rapl-mmio and subzones are not packages
    domains.push_back(domain_of(zone));
    for (const auto& subzone : sorted_entries(zone)) {
      if (is_zone(subzone, 2) && read_line(subzone / "name") == "dram") domains.push_back(domain_of(subzone));
    }
  }
  if (domains.empty()) throw std::runtime_error(powercap.string() + ": no intel-rapl zone (no RAPL package counter)");
  return domains;
}

RaplEnergyMeter::RaplEnergyMeter(std::vector<RaplDomain> domains) : domains_(std::move(domains)) {
  for (const auto& domain : domains_) totals_.emplace_back(1e-6, domain.range_uj);
}

double RaplEnergyMeter::joules() {
  double sum = 0.0;
  for (std::size_t i = 0; i < domains_.size(); ++i) {
    totals_[i].add(read_count(domains_[i].energy_file));
    sum += totals_[i].joules();
  }
  return sum;
}

std::string RaplEnergyMeter::description() const {
  std::string names;
  for (const auto& domain : domains_) names += (names.empty() ? "" : " + ") + domain.name;
  return "RAPL " + names + " (powercap)";
}

}  // namespace ampbench::harness::detail
