// A LibTorch program that links the installed ampbench::amp.
#include <ampbench/amp/version.h>

#include <iostream>

int main() {
  if (ampbench::amp::version().empty()) return 1;
  std::cout << "consumer: ok (ampbench::amp " << ampbench::amp::version() << ")\n";
  return 0;
}
