#pragma once
// Modules: parts of han built as files of their own and used only by the runs that need
// them, so that the libraries they bring cost nothing at the start of every other command:
// shared objects loaded in place (libhan_<name>.so: libhan_mpi.so, Open MPI's), or a
// program that takes han's place (han-serve, cpp-httplib's). han looks for them where it
// installs them, relative to its own executable (HAN_MODULE_DIR, set by CMake), then beside
// the executable (a build folder).
#include <string>

namespace han {

// The path of the module file `file`, or a han::Error naming `what` and the places tried.
std::string module_file(const std::string& file, const std::string& what);

// The module's handle (never closed), or a han::Error naming the places tried and why
// the module could not be loaded.
void* load_module(const std::string& name);

// A function the module exports (extern "C"); a han::Error when it has none of that name.
void* module_function(void* module, const std::string& name, const std::string& function);

}  // namespace han
