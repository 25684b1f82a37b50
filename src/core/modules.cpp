#include "han/core/modules.h"

#include <dlfcn.h>

#include <filesystem>
#include <system_error>
#include <vector>

#include "han/core/error.h"

#ifndef HAN_MODULE_DIR
#define HAN_MODULE_DIR "."
#endif

namespace han {
namespace {

// Where the modules may lie: HAN_MODULE_DIR relative to the executable's folder (the
// installed layout), then that folder itself (a build folder).
std::vector<std::filesystem::path> module_folders() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  const std::filesystem::path here = exe.parent_path();
  return {here / HAN_MODULE_DIR, here};
}

}  // namespace

std::string module_file(const std::string& file, const std::string& what) {
  std::string tried;
  for (const std::filesystem::path& folder : module_folders()) {
    const std::filesystem::path path = (folder / file).lexically_normal();
    std::error_code ec;
    if (std::filesystem::exists(path, ec)) return path.string();
    tried += (tried.empty() ? "" : ", ") + path.string() + " (absent)";
  }
  throw Error("han's " + what + " " + file + " cannot be found: tried " +
              (tried.empty() ? "nowhere (the executable's own path is unknown)" : tried) +
              "; reinstall han, or run it from its build folder");
}

void* load_module(const std::string& name) {
  const std::string file = "libhan_" + name + ".so";
  const std::string path = module_file(file, name + " module");
  // RTLD_GLOBAL: Open MPI's own components, which it loads in turn, look for its symbols there.
  if (void* module = ::dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL)) return module;
  const char* why = ::dlerror();
  throw Error("han's " + name + " module " + path + " cannot be loaded: " + (why ? why : "dlopen failed") +
              "; reinstall han");
}

void* module_function(void* module, const std::string& name, const std::string& function) {
  if (void* f = ::dlsym(module, function.c_str())) return f;
  throw Error("han's " + name + " module has no " + function + ": it belongs to another han build; reinstall han");
}

}  // namespace han
