// Modules (core/modules.h): a module that is not there is one han::Error naming the file
// and every place tried; a module's missing function is one too. (Loading a real module
// is tested by tests/cli/test_cli_mpi.cpp, under mpirun.)
#include <catch2/catch.hpp>

#include <dlfcn.h>

#include <string>

#include "han/core/error.h"
#include "han/core/modules.h"

TEST_CASE("a module that is not there is an error naming the file and each place tried", "[modules]") {
  try {
    han::load_module("no_such_part");
    FAIL("loaded a module that does not exist");
  } catch (const han::Error& e) {
    const std::string what = e.what();
    INFO(what);
    CHECK(what.rfind("han's no_such_part module libhan_no_such_part.so cannot be found: tried ", 0) == 0);
    // Where it is installed (relative to the executable), then beside the executable.
    CHECK(what.find("/libhan_no_such_part.so (absent), ") != std::string::npos);
    CHECK(what.find("; reinstall han, or run it from its build folder") != std::string::npos);
    CHECK(what.find('\n') == std::string::npos);
  }
}

TEST_CASE("a module without the function asked for is an error naming both", "[modules]") {
  void* self = ::dlopen(nullptr, RTLD_NOW);  // this executable stands in for a module
  REQUIRE(self != nullptr);
  CHECK_THROWS_WITH(han::module_function(self, "mpi", "han_no_such_function"),
                    "han's mpi module has no han_no_such_function: it belongs to another han build; reinstall han");
}
