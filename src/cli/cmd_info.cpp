// han info --model FILE [--json]
#include <cstdio>

#include "commands.h"
#include "han/infer/classifier.h"
#include "han/infer/model_file.h"
#include "han/nn/parameters.h"
#include "logging.h"

namespace han::cli {
namespace {

struct InfoArgs {
  std::string model;
  bool json = false;
};

void run_info(const InfoArgs& a) {
  nlohmann::json header;
  const Classifier c = load_classifier(a.model, nullptr, &header);  // validates the whole file
  const std::uint32_t version = kModelFormatVersion;  // a file of any other version is refused
  nlohmann::json info = {{"model", a.model},
                         {"format_version", version},
                         {"labels", c.labels},
                         {"vocabulary_size", c.vocab.size()},
                         {"parameters", parameter_count(c.params)},
                         {"config", config_to_json(c.config)}};
  if (header.contains("trained")) info["trained"] = header["trained"];
  if (a.json) {
    std::printf("%s\n", info.dump().c_str());
    return;
  }
  std::printf("model            %s\n", a.model.c_str());
  std::printf("format version   %u\n", version);
  std::printf("labels (%zu)      ", c.labels.size());
  for (std::size_t i = 0; i < c.labels.size(); ++i) std::printf("%s%s", i ? ", " : "", c.labels[i].c_str());
  std::printf("\nvocabulary       %zu words\n", c.vocab.size());
  std::printf("parameters       %lld\n", static_cast<long long>(parameter_count(c.params)));
  if (header.contains("trained")) std::printf("trained          %s\n", header["trained"].dump().c_str());
  std::printf("config\n%s\n", config_to_json(c.config).dump(2).c_str());
}

}  // namespace

void add_info_command(CLI::App& app) {
  auto args = std::make_shared<InfoArgs>();
  CLI::App* cmd = app.add_subcommand("info", "Show a model file's config, labels, vocabulary and size");
  cmd->add_option("-m,--model", args->model, "Model file (model.han)")->required();
  cmd->add_flag("--json", args->json, "One JSON object");
  cmd->callback([args] { run_info(*args); });
}

}  // namespace han::cli
