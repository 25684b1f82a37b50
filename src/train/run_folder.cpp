#include "han/train/run_folder.h"

#include <filesystem>

namespace han {

RunFiles run_files(const std::string& folder) {
  RunFiles f;
  f.folder = folder;
  if (folder.empty()) return f;
  const std::filesystem::path dir(folder);
  f.model = (dir / "model.han").string();
  f.metrics = (dir / "metrics.jsonl").string();
  f.checkpoint = (dir / "checkpoint.han").string();
  f.config = (dir / "config.json").string();
  return f;
}

}  // namespace han
