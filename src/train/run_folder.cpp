#include "han/train/run_folder.h"

#include <filesystem>
#include <system_error>
#include <vector>

#include <nlohmann/json.hpp>

#include "han/core/error.h"
#include "han/core/io.h"
#include "han/core/input_stream.h"

namespace han {
namespace {

namespace fs = std::filesystem;

// The files of a run, in the order errors name them.
const char* const kRunFileNames[] = {"checkpoint.han", "config.json", "members", "metrics.jsonl", "model.han",
                                     "vectors.txt"};

void refuse_held_run(const std::string& folder) {
  const std::string held = run_files_held(folder);
  if (held.empty()) return;
  const bool interrupted = holds_interrupted_run(folder);
  throw Error(folder + " holds a run (" +
              (interrupted ? "an interrupted one: continue it with han train --resume " + folder : held) +
              "); pass --overwrite to replace it");
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
  f.vectors = (dir / "vectors.txt").string();
  f.members = (dir / "members").string();
  return f;
}

bool holds_interrupted_run(const std::string& folder) {
  std::error_code ec;
  const RunFiles f = run_files(folder);
  if (fs::exists(f.checkpoint, ec)) return true;
  if (!fs::is_directory(f.members, ec)) return false;
  for (const auto& member : fs::directory_iterator(f.members, ec))
    if (fs::exists(member.path() / "checkpoint.han", ec)) return true;
  return false;
}

std::string embeddings_file(const Config& cfg, const RunFiles& files) {
  if (!pretrains_embeddings(cfg.model)) return cfg.model.embeddings;
  if (files.folder.empty())
    throw Error("model.embeddings: \"pretrain\" writes its vectors into the run folder of han train; "
                "elsewhere, train them with han embed and give their file");
  return files.vectors;
}

std::string run_files_held(const std::string& folder) {
  std::string held;
  std::error_code ec;
  for (const char* name : kRunFileNames)
    if (fs::exists(fs::path(folder) / name, ec)) held += (held.empty() ? "" : ", ") + std::string(name);
  return held;
}

void remove_run_files(const std::string& folder) {
  std::vector<fs::path> doomed;
  std::error_code ec;
  if (!fs::exists(folder, ec)) return;
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    const std::string name = entry.path().filename().string();
    for (const std::string run_file : kRunFileNames)
      if (name == run_file || name.rfind(run_file + ".tmp.", 0) == 0) doomed.push_back(entry.path());
  }
  if (ec) throw Error("cannot list " + folder + ": " + ec.message(), 1);
  for (const fs::path& path : doomed)
    if (fs::remove_all(path, ec) == static_cast<std::uintmax_t>(-1) || ec)
      throw Error("cannot remove " + path.string() + ": " + ec.message(), 1);
}

PreparedRun plan_run(Config cfg, const std::string& folder, bool overwrite, bool lock) {
  HAN_ASSERT(!folder.empty());
  for (std::string* path : {&cfg.data.train, &cfg.data.dev, &cfg.data.test, &cfg.data.unlabeled, &cfg.model.embeddings,
                             &cfg.trainer.init})
    if (!path->empty() && *path != kPretrainEmbeddings && !is_stdin_name(*path))
      *path = fs::absolute(*path).lexically_normal().string();
  require_utf8_paths(cfg, "");  // the current folder joined in may not be UTF-8
  std::error_code ec;
  if (fs::exists(folder, ec) && !fs::is_directory(folder, ec))
    throw Error(folder + ": --output exists and is not a folder");
  const bool existed = fs::exists(folder, ec);
  fs::create_directories(folder, ec);
  if (ec) throw Error("cannot create output folder " + folder + ": " + ec.message(), 1);
  PreparedRun run{std::move(cfg), run_files(folder), false, nullptr};
  try {
    // Locked before it is looked at: two runs cannot both find it free.
    if (lock) run.lock = std::make_shared<RunLock>(folder, "han train", !existed);
    if (!overwrite) refuse_held_run(folder);
  } catch (...) {
    run.lock.reset();
    if (!existed) fs::remove(folder, ec);  // a folder this run made, still empty: not left behind
    throw;
  }
  return run;
}

void begin_run(const PreparedRun& run) {
  remove_run_files(run.files.folder);
  write_file_atomically(run.files.config, config_to_json(run.config).dump(2) + "\n");
}

void abandon_run(const PreparedRun& run) {
  if (run.resume || !fs::exists(run.files.config)) return;
  std::error_code ec;
  // Nothing trained yet: besides config.json and vectors.txt, at most empty member folders.
  for (const char* name : {"checkpoint.han", "metrics.jsonl", "model.han"})
    if (fs::exists(fs::path(run.files.folder) / name, ec)) return;
  if (fs::is_directory(run.files.members, ec))
    for (const auto& entry : fs::recursive_directory_iterator(run.files.members, ec))
      if (!entry.is_directory(ec)) return;
  fs::remove(run.files.config, ec);
  fs::remove(run.files.vectors, ec);
  fs::remove_all(run.files.members, ec);
}

void refuse_finished_run(const std::string& folder) {
  const RunFiles files = run_files(folder);
  std::error_code ec;
  if (!fs::exists(files.model, ec) || holds_interrupted_run(folder)) return;
  throw Error(folder + ": the run finished (" + files.model +
              "); --resume continues an interrupted run. To train it further, from its weights: han train --config " +
              files.config + " --init " + files.model + " --set trainer.epochs=N --output NEW_DIR");
}

PreparedRun reopen_run(const std::string& folder, bool lock) {
  HAN_ASSERT(!folder.empty());
  PreparedRun run;
  run.files = run_files(folder);
  run.resume = true;
  std::error_code ec;
  if (lock && fs::is_directory(folder, ec)) run.lock = std::make_shared<RunLock>(folder, "han train --resume");
  refuse_finished_run(folder);
  if (!holds_interrupted_run(folder))
    throw Error(run.files.checkpoint + ": no checkpoint to resume from (the run finished, or was never interrupted)");
  const nlohmann::json j = nlohmann::json::parse(read_file(run.files.config), nullptr, false);
  if (j.is_discarded()) throw Error(run.files.config + ": malformed JSON");
  run.config = stored_config_from_json(j, run.files.config);
  return run;
}

}  // namespace han
