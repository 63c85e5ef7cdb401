// FNV-1a, 64 bits, as 16 hex digits: stable across compilers and platforms (std::hash is not),
// enough to tell testbeds and reports apart, and not a security boundary.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace ampbench::history::detail {

inline std::string fnv1a_hex(std::string_view text) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (const char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001b3ULL;
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
  return hex;
}

}  // namespace ampbench::history::detail
