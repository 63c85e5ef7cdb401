// Linked into every test binary: a test process that dies of a fatal signal prints its stack to
// stderr first. The GPU kit's run on an H200 saw ranks_test die of SIGSEGV with nothing in its log
// after "[ RUN ]", and a lease is too short to rerun it under a debugger; the stack in the log is
// what the next run brings back. Left out under AddressSanitizer, whose own report is better.
#include <execinfo.h>
#include <unistd.h>

#include <csignal>

#if !defined(__SANITIZE_ADDRESS__)
namespace {

constexpr int kFatalSignals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE};

void write_text(const char* text) {
  std::size_t length = 0;
  while (text[length] != '\0') ++length;
  [[maybe_unused]] const auto written = write(STDERR_FILENO, text, length);
}

// Only async-signal-safe calls, but backtrace(), whose first call loads libgcc (done at install).
void print_stack_and_die(int signal_number) {
  char digits[4] = {};
  digits[0] = static_cast<char>('0' + signal_number / 10);
  digits[1] = static_cast<char>('0' + signal_number % 10);
  write_text("\n*** the test process received fatal signal ");
  write_text(signal_number < 10 ? digits + 1 : digits);
  write_text("; its stack (function names need the binary's exported symbols):\n");
  void* frames[64];
  const int count = backtrace(frames, 64);
  backtrace_symbols_fd(frames, count, STDERR_FILENO);
  // SA_RESETHAND restored the default action: dying of the same signal keeps the exit status.
  raise(signal_number);
}

bool install() {
  void* warm_up[1];
  backtrace(warm_up, 1);
  struct sigaction action {};
  action.sa_handler = print_stack_and_die;
  action.sa_flags = SA_RESETHAND;
  sigemptyset(&action.sa_mask);
  for (const int signal_number : kFatalSignals) sigaction(signal_number, &action, nullptr);
  return true;
}

[[maybe_unused]] const bool installed = install();

}  // namespace
#endif
