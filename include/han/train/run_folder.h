#pragma once
// A run folder: what `han train` writes (config.json, model.han, metrics.jsonl and, when
// interrupted, checkpoint.han) and what `han train --resume` reads back.
#include <string>

#include "han/core/config.h"

namespace han {

struct RunFiles {
  std::string folder;      // "" = a run that writes nothing (every path "")
  std::string model;       // model.han: the best epoch's model
  std::string metrics;     // metrics.jsonl: one JSON line per epoch
  std::string checkpoint;  // checkpoint.han: written on interruption, removed on completion
  std::string config;      // config.json: the effective config, data paths absolute
};

RunFiles run_files(const std::string& folder);

// A run ready to train: its config, its files, and whether it continues a checkpoint.
struct PreparedRun {
  Config config;
  RunFiles files;
  bool resume = false;
};

// A new run in `folder`: data paths made absolute (config.json then stays valid from any
// folder, for --resume and reruns), the folder created, config.json written.
PreparedRun start_run(Config cfg, const std::string& folder);

// An interrupted run to continue: DIR/checkpoint.han must exist; the config is the one
// DIR/config.json holds.
PreparedRun reopen_run(const std::string& folder);

}  // namespace han
