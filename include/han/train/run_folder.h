#pragma once
// A run folder: what `han train` writes (config.json, model.han, metrics.jsonl and, when
// interrupted, checkpoint.han) and what `han train --resume` reads back.
#include <string>

namespace han {

struct RunFiles {
  std::string folder;      // "" = a run that writes nothing (every path "")
  std::string model;       // model.han: the best epoch's model
  std::string metrics;     // metrics.jsonl: one JSON line per epoch
  std::string checkpoint;  // checkpoint.han: written on interruption, removed on completion
  std::string config;      // config.json: the effective config, data paths absolute
};

RunFiles run_files(const std::string& folder);

}  // namespace han
