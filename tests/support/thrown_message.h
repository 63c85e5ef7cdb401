// What a failing call says: the message of the Exception that `body` throws, or "(no error)". Tests
// of bad input assert the words of the error, not only that one was thrown.
#pragma once

#include <functional>
#include <string>

namespace ampbench::testing {

template <typename Exception>
[[nodiscard]] std::string thrown_message(const std::function<void()>& body) {
  try {
    body();
  } catch (const Exception& error) {
    return error.what();
  }
  return "(no error)";
}

}  // namespace ampbench::testing
