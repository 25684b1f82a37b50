// han embed [--config FILE] [--set key=value]... [--input FILE]... --output FILE
#include <cstdio>
#include <filesystem>

#include "commands.h"
#include "han/core/error.h"
#include "han/embed/skipgram.h"
#include "han/embed/skipgram_text.h"
#include "han/embed/word_vectors.h"
#include "interrupts.h"
#include "logging.h"

namespace han::cli {
namespace {

namespace fs = std::filesystem;

struct EmbedArgs {
  std::string config;
  std::vector<std::string> overrides;
  std::vector<std::string> inputs;
  std::string output;
  std::string encoding;  // --encoding: data.encoding
  LogOptions log;
};

// The config file with its overrides, or without one the defaults with the overrides.
Config embed_config(const EmbedArgs& a) {
  const std::vector<std::string> overrides = with_encoding(a.overrides, a.encoding);
  if (!a.config.empty()) return load_config_file(a.config, overrides);
  nlohmann::json j = nlohmann::json::object();
  apply_overrides(j, overrides);
  return config_from_json(j, "");
}

// Refused before the training rather than after it.
void check_output_path(const std::string& output) {
  require_utf8_path("--output", output);  // it is named in the JSON summary
  std::error_code ec;
  if (fs::is_directory(output, ec)) throw han::Error(output + ": is a folder, expected a file name for --output");
  const fs::path folder = fs::absolute(output).parent_path();
  if (!fs::is_directory(folder, ec)) throw han::Error(output + ": folder " + folder.string() + " does not exist");
}

void report_progress(SkipGramOptions& options, ProgressBar& bar, const LogOptions& log) {
  if (!show_progress(log)) return;
  options.on_progress = [&bar](const SkipGramProgress& p) {
    char text[120];
    std::snprintf(text, sizeof text, "lr %.5f  %.0f words/s", p.lr, p.words_per_second);
    bar.update(p.fraction, text);
  };
}

void run_embed(const EmbedArgs& a) {
  setup_logging(a.log);
  const Config cfg = embed_config(a);
  check_output_path(a.output);
  stop_at_once("interrupted; nothing was written");  // nothing to save until the vectors are done
  const SkipGramCorpus text = read_skipgram_text(cfg, a.inputs);
  SkipGramOptions options = skipgram_options(cfg);
  ProgressBar bar;
  report_progress(options, bar, a.log);
  SkipGramStats stats;
  const WordVectors vectors = train_skipgram(text, options, &stats);
  bar.finish();
  stop_gracefully();  // the file is written whole, then a signal is answered
  save_word_vectors(a.output, vectors);
  stop_at_once("interrupted: the vectors are in " + a.output);
  const nlohmann::json summary = {{"output", a.output},
                                  {"words", vectors.words.size()},
                                  {"dim", options.dim},
                                  {"documents", text.documents()},
                                  {"corpus_words", text.tokens.size()},
                                  {"epochs", options.epochs},
                                  {"threads", options.threads},
                                  {"pairs", stats.pairs},
                                  {"seconds", stats.seconds},
                                  {"words_per_second", stats.words_per_second()}};
  std::printf("%s\n", summary.dump().c_str());
}

}  // namespace

void add_embed_command(CLI::App& app) {
  auto args = std::make_shared<EmbedArgs>();
  CLI::App* cmd = app.add_subcommand("embed", "Train skip-gram word vectors (word2vec text format)");
  cmd->add_option("-c,--config", args->config,
                  "JSON config: text from data.train and data.unlabeled, settings from embed.* (see han help config embed)")
      ->type_name("FILE");
  cmd->add_option("-s,--set", args->overrides, "Override a config key: key.path=value (repeatable)")
      ->allow_extra_args(false)
      ->type_name("KEY=VALUE");
  cmd->add_option("-i,--input", args->inputs, "Plain text file, one document per line (repeatable)")->type_name("FILE");
  cmd->add_option("-o,--output", args->output, "Vectors file to write")->required()->type_name("FILE");
  add_encoding_option(*cmd, args->encoding, "the text files'");
  add_log_options(*cmd, args->log);
  cmd->callback([args] { run_embed(*args); });
}

}  // namespace han::cli
