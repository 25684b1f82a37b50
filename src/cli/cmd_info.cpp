// han info --model FILE [--json]
#include <cstdio>
#include <string>
#include <vector>

#include "commands.h"
#include "han/core/text_table.h"
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
  if (!c.config.trainer.init.empty()) info["parent"] = c.config.trainer.init;  // the model it was trained from
  if (a.json) {
    std::printf("%s\n", info.dump().c_str());
    return;
  }
  std::string labels;
  for (std::size_t i = 0; i < c.labels.size(); ++i) labels += (i ? ", " : "") + c.labels[i];
  std::vector<std::vector<std::string>> rows = {
      {"model", a.model},
      {"format version", std::to_string(version)},
      {"labels (" + std::to_string(c.labels.size()) + ")", labels},
      {"vocabulary", std::to_string(c.vocab.size()) + " words"},
      {"parameters", std::to_string(parameter_count(c.params))}};
  if (header.contains("trained")) rows.push_back({"trained", header["trained"].dump()});
  if (!c.config.trainer.init.empty()) rows.push_back({"parent model", c.config.trainer.init});
  std::fputs(text_table(rows, "   ").c_str(), stdout);
  std::printf("config\n%s\n", config_to_json(c.config).dump(2).c_str());
}

}  // namespace

void add_info_command(CLI::App& app) {
  auto args = std::make_shared<InfoArgs>();
  CLI::App* cmd = app.add_subcommand("info", "Show a model file's config, labels, vocabulary and size");
  cmd->add_option("-m,--model", args->model, "Model file (model.han)")->required()->type_name("FILE");
  cmd->add_flag("--json", args->json, "One JSON object");
  cmd->callback([args] { run_info(*args); });
}

}  // namespace han::cli
