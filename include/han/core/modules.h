#pragma once
// Modules: parts of han built as shared objects of their own (libhan_<name>.so) and loaded
// only by the runs that need them, so that the libraries they bring (Open MPI's, for
// libhan_mpi.so) cost nothing at the start of every other command. han looks for a module
// where it installs them, relative to its own executable (HAN_MODULE_DIR, set by CMake),
// then beside the executable (a build folder).
#include <string>

namespace han {

// The module's handle (never closed), or a han::Error naming the places tried and why
// the module could not be loaded.
void* load_module(const std::string& name);

// A function the module exports (extern "C"); a han::Error when it has none of that name.
void* module_function(void* module, const std::string& name, const std::string& function);

}  // namespace han
