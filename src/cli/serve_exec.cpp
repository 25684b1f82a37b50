// han serve, in han (serve_run.h): han-serve takes this process's place, with the same
// command line, so that han itself does not load the HTTP library.
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "han/core/error.h"
#include "han/core/modules.h"
#include "serve_run.h"

namespace han::cli {

void serve(const ServeArgs&) {
  const std::string program = module_file("han-serve", "serve program");
  std::vector<std::string> args = remembered_command_line();
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  ::execv(program.c_str(), argv.data());
  throw Error("cannot start " + program + ": " + std::strerror(errno));
}

}  // namespace han::cli
