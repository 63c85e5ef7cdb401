// Internal: the one line of an exception's message a failed cell or pass records (c10 errors
// without their backtrace).
#pragma once

#include <c10/util/Exception.h>

#include <exception>
#include <string>

namespace ampbench::harness::detail {

inline std::string error_text(const std::exception& error) {
  const auto* c10_error = dynamic_cast<const c10::Error*>(&error);
  const std::string text = c10_error != nullptr ? c10_error->what_without_backtrace() : error.what();
  return text.substr(0, text.find('\n'));
}

}  // namespace ampbench::harness::detail
