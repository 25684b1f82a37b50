// han prepare --config FILE [--set key=value]... [--cache FILE]
// Reads and tokenizes the config's data once and writes the token cache (data.cache, or
// --cache), so that han train, han ablate and han train --resume on the same data start
// from the mapped cache instead of the text. Prints one JSON line.
#include <chrono>
#include <cstdio>
#include <filesystem>

#include "commands.h"
#include "han/text/data_format.h"
#include "han/core/error.h"
#include "han/text/corpus.h"
#include "logging.h"

namespace han::cli {
namespace {

struct PrepareArgs {
  std::string config;
  std::vector<std::string> overrides;
  std::string cache;
  std::string encoding;  // --encoding: data.encoding
  LogOptions log;
};

// Runs whose vocabulary depends on more than the data write their cache from han train.
void refuse_unpreparable(const Config& cfg) {
  if (cfg.data.cache.empty())
    throw han::Error("prepare needs a cache file: set data.cache in the config, or give --cache FILE");
  if (pretrains_embeddings(cfg.model))
    throw han::Error("model.embeddings: \"pretrain\" adds the words of vectors trained by han train to the "
                     "vocabulary, so han train writes data.cache itself");
  if (!cfg.trainer.init.empty())
    throw han::Error("trainer.init: a run from a model uses its vocabulary, so han train writes data.cache itself");
}

void run_prepare(const PrepareArgs& a) {
  setup_logging(a.log);
  std::vector<std::string> overrides = with_encoding(a.overrides, a.encoding);
  if (!a.cache.empty()) overrides.push_back("data.cache=" + a.cache);
  Config cfg = load_config_file(a.config, overrides);
  resolve_data_format(cfg.data);
  refuse_unpreparable(cfg);
  const auto start = std::chrono::steady_clock::now();
  const Corpus corpus = load_corpus(cfg);  // maps the cache, or reads the text and writes it
  if (corpus.cache == Corpus::CacheUse::unwritten)
    throw han::Error("cannot write the token cache " + cfg.data.cache + " (see the warning above)", 1);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const nlohmann::json summary = {
      {"cache", cfg.data.cache},
      {"up_to_date", corpus.cache == Corpus::CacheUse::mapped},
      {"train", corpus.train.size()},
      {"dev", corpus.dev.size()},
      {"test", corpus.test.size()},
      {"tokens", corpus.train.total_tokens() + corpus.dev.total_tokens() + corpus.test.total_tokens()},
      {"vocabulary", corpus.vocab.size()},
      {"bytes", std::filesystem::file_size(cfg.data.cache)},
      {"seconds", seconds}};
  std::printf("%s\n", summary.dump().c_str());
}

}  // namespace

void add_prepare_command(CLI::App& app) {
  auto args = std::make_shared<PrepareArgs>();
  CLI::App* cmd = app.add_subcommand("prepare", "Tokenize a config's data once into a token cache (data.cache) for later runs");
  cmd->add_option("-c,--config", args->config, "JSON config file (keys: han help config)")
      ->required()
      ->type_name("FILE");
  cmd->add_option("-s,--set", args->overrides, "Override a config key: key.path=value (repeatable)")
      ->allow_extra_args(false)
      ->type_name("KEY=VALUE");
  cmd->add_option("--cache", args->cache, "Token cache file to write (sets data.cache)")->type_name("FILE");
  add_encoding_option(*cmd, args->encoding, "the data files'");
  add_log_options(*cmd, args->log);
  cmd->callback([args] { run_prepare(*args); });
}

}  // namespace han::cli
