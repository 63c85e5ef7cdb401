// The misuse tests' check: a call must throw, and its message must name the culprit.
#pragma once

#include <gtest/gtest.h>

#include <exception>
#include <functional>
#include <string>
#include <string_view>

namespace ampbench::amp::testing {

// A gtest failure unless `call` throws an exception whose message contains `needle`.
inline void expect_error(const std::function<void()>& call, std::string_view needle) {
  try {
    call();
    ADD_FAILURE() << "no exception; expected one mentioning: " << needle;
  } catch (const std::exception& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find(needle), std::string::npos) << "message: " << message;
  }
}

}  // namespace ampbench::amp::testing
