// han: a Hierarchical Attention Network document classifier.
// main() only dispatches; each subcommand lives in its own cmd_<verb>.cpp.
#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>

#include "commands.h"
#include "han/core/error.h"
#include "han/core/malloc_tuning.h"

int main(int argc, char** argv) {
  han::tune_malloc_for_batches();
  CLI::App app{"han: document classification with Hierarchical Attention Networks (Yang et al., 2016)"};
  app.name("han");
  app.set_version_flag("--version", HAN_VERSION);
  app.require_subcommand(1);
  han::cli::add_train_command(app);
  han::cli::add_predict_command(app);
  han::cli::add_eval_command(app);
  han::cli::add_info_command(app);
  han::cli::add_ablate_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const han::cli::CommandExit& e) {
    return e.code;
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "han: error: %s (see han --help)\n", e.what());
    return 2;
  } catch (const han::Error& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "han: error: %s\n", e.what());
    return e.exit_code();
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "han: error: out of memory\n");
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "han: error: %s\n", e.what());
    return 1;
  }
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {  // e.g. han info > /dev/full
    std::fprintf(stderr, "han: error: cannot write output: %s\n", std::strerror(errno));
    return 1;
  }
  return 0;
}
