#pragma once
// Running han serve. Its HTTP library (cpp-httplib, with OpenSSL and brotli behind it)
// costs about 2 ms of start-up to load, so only the han-serve executable links it: han
// itself starts han-serve in its place (serve_exec.cpp: the same process, its command line
// unchanged), and han-serve, which is han with the server in, runs serve_run.cpp.
#include <string>
#include <vector>

#include "serve_options.h"

namespace han::cli {

// Serves until SIGINT or SIGTERM (han::Error when it cannot); in han, never returns.
void serve(const ServeArgs& a);

// The command line main() was given, kept for han to hand it to han-serve.
void remember_command_line(int argc, char** argv);
const std::vector<std::string>& remembered_command_line();

}  // namespace han::cli
