// Built and run only under AddressSanitizer (CMakeLists.txt): the kernel variants run
// uninstrumented there, and src/nn/kernels.cpp checks each operand's extent instead. This
// program hands gemm a view one column wider than its buffer; ctest expects the check's
// report and the abort, as ASan would give for the access itself.
#include <unistd.h>

#include <csignal>
#include <vector>

#include "han/nn/kernels.h"

int main() {
  // The check aborts; ctest counts a signal as a failure whatever the output, so the abort
  // ends the process with an exit code instead (ctest then judges the report alone).
  std::signal(SIGABRT, [](int) { _exit(134); });
  std::vector<float> a(6 * 4, 1.0f), b(5 * 2, 1.0f), c(6 * 2);
  Eigen::Map<han::Matrix> A(a.data(), 6, 5), B(b.data(), 5, 2), C(c.data(), 6, 2);  // A: 6 x 4 floats allocated
  han::gemm(A, han::Op::plain, B, han::Op::plain, C);
  return 0;
}
