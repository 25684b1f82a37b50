#pragma once
// A run folder: what `han train` writes (config.json, model.han, metrics.jsonl, with
// model.embeddings = "pretrain" vectors.txt, when interrupted checkpoint.han, and for an
// ensemble the members/ folder, train/ensemble.h) and what
// `han train --resume` reads back. A folder holds
// the files of one run only: a new run never mixes its files with an earlier one's.
#include <memory>
#include <string>

#include "han/core/config.h"
#include "han/train/run_lock.h"

namespace han {

struct RunFiles {
  std::string folder;      // "" = a run that writes nothing (every path "")
  std::string model;       // model.han: the best epoch's model
  std::string metrics;     // metrics.jsonl: one JSON line per epoch
  std::string checkpoint;  // checkpoint.han: written on interruption, removed on completion
  std::string config;      // config.json: the effective config, data paths absolute
  std::string vectors;     // vectors.txt: the skip-gram vectors of model.embeddings = "pretrain"
  std::string members;     // members/: an ensemble's members, one run folder each (members/1, ...)
};

RunFiles run_files(const std::string& folder);

// The word vectors a run starts from: model.embeddings, or the run's vectors.txt when it is
// "pretrain" (an error for a run without a folder); "" = none.
std::string embeddings_file(const Config& cfg, const RunFiles& files);

// The run files `folder` holds, as a list for messages ("config.json, model.han": in the
// order checkpoint.han, config.json, members, metrics.jsonl, model.han, vectors.txt); "" when it holds
// no run or does not exist.
std::string run_files_held(const std::string& folder);

// Removes the run files `folder` holds (members/ with all it holds), with the temporary files
// a killed write left of them (model.han.tmp.<pid>, ...); other files stay.
void remove_run_files(const std::string& folder);

// A run ready to train: its config, its files, whether it continues a checkpoint, and the
// lock that keeps other runs out of its folder while it exists (none on the ranks of an
// MPI job that do not write).
struct PreparedRun {
  Config config;
  RunFiles files;
  bool resume = false;
  std::shared_ptr<RunLock> lock;
};

// A new run for `folder`, checked but not yet started: data paths made absolute
// (config.json then stays valid from any folder, for --resume and reruns). With `lock`,
// the folder is locked first (RunLock: a folder another run is using is refused). A
// folder that holds a run is refused (han::Error naming it; for an interrupted run, with
// the resume command) unless `overwrite`. Creates the folder (an unusable one is reported
// before the data is read; one it made is removed again when refused) but writes no file
// in it besides the lock.
PreparedRun plan_run(Config cfg, const std::string& folder, bool overwrite, bool lock = true);

// Starts a planned run once its data is read and its vectors pretrained (an error or
// interruption before leaves the folder as it was): removes the files of the run it held
// (which plan_run allowed only with overwrite) and writes config.json. The caller then
// writes vectors.txt, if any.
void begin_run(const PreparedRun& run);

// For a new run that failed before writing anything but config.json, vectors.txt and empty
// member folders (a missing embeddings file, say): removes them, so the corrected command
// is not refused.
void abandon_run(const PreparedRun& run);

// Whether `folder` holds an interrupted run: its checkpoint.han, or one of an ensemble member's.
bool holds_interrupted_run(const std::string& folder);
// han::Error when `folder` holds a finished run (its model.han, no checkpoint): --resume has
// no optimizer state to go on from, so the message gives the command that trains further.
void refuse_finished_run(const std::string& folder);

// An interrupted run to continue (holds_interrupted_run); the config is the one
// DIR/config.json holds.
// With `lock`, the folder is locked first, as by plan_run.
PreparedRun reopen_run(const std::string& folder, bool lock = true);

}  // namespace han
