#include "han/core/error.h"

#include <cstdio>
#include <cstdlib>

namespace han {

void assertion_failed(const char* expr, const char* file, int line) {
  std::fprintf(stderr, "han: internal error: %s failed at %s:%d\n", expr, file, line);
  std::abort();
}

}  // namespace han
