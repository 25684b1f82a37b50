#include "han/train/run_folder.h"

#include <filesystem>
#include <system_error>

#include <nlohmann/json.hpp>

#include "han/core/error.h"
#include "han/core/io.h"

namespace han {
namespace {

namespace fs = std::filesystem;

void create_run_folder(const std::string& folder) {
  std::error_code ec;
  if (fs::exists(folder, ec) && !fs::is_directory(folder, ec))
    throw Error(folder + ": --output exists and is not a folder");
  fs::create_directories(folder, ec);
  if (ec) throw Error("cannot create output folder " + folder + ": " + ec.message(), 1);
}

}  // namespace

RunFiles run_files(const std::string& folder) {
  RunFiles f;
  f.folder = folder;
  if (folder.empty()) return f;
  const fs::path dir(folder);
  f.model = (dir / "model.han").string();
  f.metrics = (dir / "metrics.jsonl").string();
  f.checkpoint = (dir / "checkpoint.han").string();
  f.config = (dir / "config.json").string();
  return f;
}

PreparedRun start_run(Config cfg, const std::string& folder) {
  HAN_ASSERT(!folder.empty());
  for (std::string* path : {&cfg.data.train, &cfg.data.dev, &cfg.data.test, &cfg.model.embeddings})
    if (!path->empty()) *path = fs::absolute(*path).lexically_normal().string();
  PreparedRun run{std::move(cfg), run_files(folder), false};
  create_run_folder(folder);
  write_file_atomically(run.files.config, config_to_json(run.config).dump(2) + "\n");
  return run;
}

PreparedRun reopen_run(const std::string& folder) {
  HAN_ASSERT(!folder.empty());
  PreparedRun run;
  run.files = run_files(folder);
  run.resume = true;
  if (!fs::exists(run.files.checkpoint))
    throw Error(run.files.checkpoint + ": no checkpoint to resume from (the run finished, or was never interrupted)");
  const nlohmann::json j = nlohmann::json::parse(read_file(run.files.config), nullptr, false);
  if (j.is_discarded()) throw Error(run.files.config + ": malformed JSON");
  run.config = stored_config_from_json(j, run.files.config);
  return run;
}

}  // namespace han
