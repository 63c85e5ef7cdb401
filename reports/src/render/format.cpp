#include "render/format.h"

#include <array>
#include <cmath>
#include <cstdio>

namespace ampbench::reports::detail {
namespace {

struct Unit {
  double seconds;  // or joules: what one of the unit is worth
  const char* name;
};
constexpr std::array<Unit, 4> kUnits = {{{1.0, "s"}, {1e-3, "ms"}, {1e-6, "µs"}, {1e-9, "ns"}}};
constexpr std::array<Unit, 4> kEnergyUnits = {{{1e3, "kJ"}, {1.0, "J"}, {1e-3, "mJ"}, {1e-6, "µJ"}}};

template <std::size_t N>
const Unit& unit_for(double value, const std::array<Unit, N>& units) {
  for (const auto& unit : units) {
    if (std::fabs(value) >= unit.seconds) return unit;
  }
  return units.back();
}

const Unit& unit_for(double seconds) { return unit_for(seconds, kUnits); }

// Decimals that give four significant digits for a value in [1, 1000).
int decimals_for(double scaled) {
  const double magnitude = std::fabs(scaled);
  return magnitude >= 100.0 ? 1 : magnitude >= 10.0 ? 2 : 3;
}

}  // namespace

std::string format_fixed(double value, int decimals) {
  if (!std::isfinite(value)) return "n/a";
  std::array<char, 64> buffer{};
  std::snprintf(buffer.data(), buffer.size(), "%.*f", decimals, value);
  return buffer.data();
}

std::string format_count(double count) {
  if (!std::isfinite(count)) return "n/a";
  if (count < 1000.0) return format_fixed(count, count < 10.0 && count != std::floor(count) ? 1 : 0);
  if (count < 1e6) return format_fixed(count / 1e3, 1) + "k";
  return format_fixed(count / 1e6, 1) + "M";
}

std::string format_general(double value, int significant_digits) {
  if (!std::isfinite(value)) return "n/a";
  std::array<char, 64> buffer{};
  std::snprintf(buffer.data(), buffer.size(), "%.*g", significant_digits, value);
  return buffer.data();
}

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds)) return "n/a";
  const Unit& unit = unit_for(seconds);
  const double scaled = seconds / unit.seconds;
  return format_fixed(scaled, decimals_for(scaled)) + " " + unit.name;
}

namespace {

template <std::size_t N>
std::string format_interval(double value, double low, double high, const std::array<Unit, N>& units) {
  if (!std::isfinite(value)) return "n/a";
  const Unit& unit = unit_for(value, units);
  const int decimals = decimals_for(value / unit.seconds);
  return format_fixed(value / unit.seconds, decimals) + " " + unit.name + " [" +
         format_fixed(low / unit.seconds, decimals) + ", " + format_fixed(high / unit.seconds, decimals) + "]";
}

}  // namespace

std::string format_duration_interval(double value, double low, double high) {
  return format_interval(value, low, high, kUnits);
}

std::string format_energy_interval(double value, double low, double high) {
  return format_interval(value, low, high, kEnergyUnits);
}

std::string format_energy(double joules) {
  if (!std::isfinite(joules)) return "n/a";
  const Unit& unit = unit_for(joules, kEnergyUnits);
  const double scaled = joules / unit.seconds;
  return format_fixed(scaled, decimals_for(scaled)) + " " + unit.name;
}

std::string format_duration_ci(const SampleSummary& summary) {
  return format_duration_interval(summary.median, summary.ci_low, summary.ci_high);
}

std::string format_change_ci(const Ratio& ratio) {
  return format_percent(ratio.value - 1.0, true) + " [" + format_percent(ratio.ci_low - 1.0, true) + ", " +
         format_percent(ratio.ci_high - 1.0, true) + "]";
}

std::string format_square_size(std::int64_t n) { return std::to_string(n) + "x" + std::to_string(n); }

std::string format_ratio(double value) { return std::isfinite(value) ? format_fixed(value, 2) + "x" : "n/a"; }

std::string format_ratio_ci(const Ratio& ratio) {
  if (!std::isfinite(ratio.value)) return "n/a";
  return format_ratio(ratio.value) + " [" + format_fixed(ratio.ci_low, 2) + ", " + format_fixed(ratio.ci_high, 2) + "]";
}

std::string format_share(double fraction) {
  if (!std::isfinite(fraction)) return "n/a";
  const double percent = std::fabs(fraction * 100.0);
  if (percent > 0.0 && percent < 0.001) return "<0.001%";
  const int decimals = percent >= 100.0 ? 0 : percent >= 10.0 ? 1 : percent >= 1.0 ? 2 : 3;
  return format_fixed(fraction * 100.0, decimals) + "%";
}

std::string format_small_fraction(double fraction) {
  const double percent = std::fabs(fraction * 100.0);
  if (!std::isfinite(fraction) || percent == 0.0 || percent >= 0.001) return format_share(fraction);
  char text[32];
  std::snprintf(text, sizeof text, "%.2g%%", fraction * 100.0);
  return text;
}

std::string format_p_value(double p) {
  if (!std::isfinite(p)) return "n/a";
  return p < 0.001 ? "<0.001" : format_fixed(p, 3);
}

std::string format_flop_rate(double flops_per_s) {
  if (!std::isfinite(flops_per_s)) return "n/a";
  constexpr std::array<const char*, 6> kPrefixes = {"", "k", "M", "G", "T", "P"};
  std::size_t prefix = 0;
  double scaled = flops_per_s;
  while (std::fabs(scaled) >= 1000.0 && prefix + 1 < kPrefixes.size()) {
    scaled /= 1000.0;
    ++prefix;
  }
  return format_fixed(scaled, decimals_for(scaled)) + " " + kPrefixes[prefix] + "FLOP/s";
}

std::string format_bytes(std::int64_t bytes) {
  constexpr double kMiB = 1024.0 * 1024.0;
  const double mib = static_cast<double>(bytes) / kMiB;
  return mib >= 1024.0 ? format_fixed(mib / 1024.0, 2) + " GiB" : format_fixed(mib, 1) + " MiB";
}

std::size_t display_width(std::string_view text) {
  std::size_t width = 0;
  for (const char c : text) {
    // Count every byte but UTF-8 continuation bytes (10xxxxxx).
    if ((static_cast<unsigned char>(c) & 0xC0U) != 0x80U) ++width;
  }
  return width;
}

std::string one_line(std::string_view text, std::size_t max_width) {
  const bool cut = display_width(text) > max_width;
  const std::size_t keep = cut ? (max_width > 0 ? max_width - 1 : 0) : max_width;
  std::string line;
  std::size_t width = 0;
  for (const char c : text) {
    const bool starts_code_point = (static_cast<unsigned char>(c) & 0xC0U) != 0x80U;
    if (starts_code_point && ++width > keep) break;
    line += (c == '\n' || c == '\r' || c == '\t') ? ' ' : c;
  }
  return cut ? line + "…" : line;
}

}  // namespace ampbench::reports::detail

namespace ampbench::reports {

std::string format_percent(double fraction, bool signed_value) {
  if (!std::isfinite(fraction)) return "n/a";
  std::array<char, 64> text{};
  std::snprintf(text.data(), text.size(), signed_value ? "%+.1f%%" : "%.1f%%", fraction * 100.0);
  return text.data();
}

std::string joined(const std::vector<std::string>& parts, std::string_view separator) {
  std::string out;
  for (const auto& part : parts) {
    if (!out.empty()) out += separator;
    out += part;
  }
  return out;
}

}  // namespace ampbench::reports
