// Linked into every test binary: a test process that dies of a fatal signal prints its stack to
// stderr first. The GPU kit's run on an H200 saw ranks_test die of SIGSEGV with nothing in its log
// after "[ RUN ]", and a short booking of a GPU leaves no time to rerun it under a debugger; the
// stack in the log is what the next run brings back. Left out under AddressSanitizer, whose own
// report is better.
#include <execinfo.h>
#include <ucontext.h>
#include <unistd.h>

#include <csignal>
#include <cstdint>

#if !defined(__SANITIZE_ADDRESS__)
namespace {

constexpr int kFatalSignals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE};

void write_text(const char* text) {
  std::size_t length = 0;
  while (text[length] != '\0') ++length;
  [[maybe_unused]] const auto written = write(STDERR_FILENO, text, length);
}

void write_hex(std::uintptr_t value) {
  char text[2 + 2 * sizeof value + 1] = {'0', 'x'};
  for (std::size_t digit = 0; digit < 2 * sizeof value; ++digit) {
    text[2 + digit] = "0123456789abcdef"[(value >> (4 * (2 * sizeof value - 1 - digit))) & 0xf];
  }
  write_text(text);
}

// Where the fault happened, apart from the stack: the H200's ranks_test stack stopped at the signal
// frame, which is what the unwinder does when the faulting instruction has no unwind
// information, a call through a null or stale function pointer above all. Then the word at the
// stack pointer is the return address of that call: its caller.
void print_fault_site([[maybe_unused]] const siginfo_t* info, [[maybe_unused]] const void* context) {
#if defined(__x86_64__)
  const auto& registers = static_cast<const ucontext_t*>(context)->uc_mcontext.gregs;
  const auto pc = static_cast<std::uintptr_t>(registers[REG_RIP]);
  const auto sp = static_cast<std::uintptr_t>(registers[REG_RSP]);
  write_text("fault address ");
  write_hex(reinterpret_cast<std::uintptr_t>(info->si_addr));
  write_text(", instruction ");
  write_hex(pc);
  write_text(", stack pointer ");
  write_hex(sp);
  write_text("; the instruction, then the word at the stack pointer (the caller, if it was a call):\n");
  void* site[2] = {reinterpret_cast<void*>(pc), *reinterpret_cast<void* const*>(sp)};
  backtrace_symbols_fd(site, 2, STDERR_FILENO);
#endif
}

// Only async-signal-safe calls, but backtrace(), whose first call loads libgcc (done at install).
void print_stack_and_die(int signal_number, siginfo_t* info, void* context) {
  char digits[4] = {};
  digits[0] = static_cast<char>('0' + signal_number / 10);
  digits[1] = static_cast<char>('0' + signal_number % 10);
  write_text("\n*** the test process received fatal signal ");
  write_text(signal_number < 10 ? digits + 1 : digits);
  write_text("; its stack (function names need the binary's exported symbols):\n");
  void* frames[64];
  const int count = backtrace(frames, 64);
  backtrace_symbols_fd(frames, count, STDERR_FILENO);
  print_fault_site(info, context);
  // SA_RESETHAND restored the default action: dying of the same signal keeps the exit status.
  raise(signal_number);
}

bool install() {
  void* warm_up[1];
  backtrace(warm_up, 1);
  struct sigaction action {};
  action.sa_sigaction = print_stack_and_die;
  action.sa_flags = SA_RESETHAND | SA_SIGINFO;
  sigemptyset(&action.sa_mask);
  for (const int signal_number : kFatalSignals) sigaction(signal_number, &action, nullptr);
  return true;
}

[[maybe_unused]] const bool installed = install();

}  // namespace
#endif
