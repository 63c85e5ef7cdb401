// A program that crashes in a named function, for crash_backtrace_test: built like a test binary
// (with crash_backtrace.cpp), it must print a stack naming that function and die of SIGSEGV.
#include <cstring>

// Exported and not inlined, so that the stack names it; a write through a null pointer the
// compiler cannot see through, so that the fault happens in this frame (no tail call to raise).
[[gnu::noinline]] void crash_here_for_the_test() {
  volatile int* volatile nowhere = nullptr;
  *nowhere = 1;
}

// A call through a null function pointer: the unwinder stops at the signal frame, so only the word
// at the stack pointer (this function's return address) says where it happened.
[[gnu::noinline]] void call_nowhere_for_the_test() {
  void (*volatile nowhere)() = nullptr;
  nowhere();
  crash_here_for_the_test();  // not reached; keeps the call above from being a tail jump
}

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "crash") == 0) crash_here_for_the_test();
  if (argc > 1 && std::strcmp(argv[1], "call-nowhere") == 0) call_nowhere_for_the_test();
  return 0;
}
