// The config enums' name tables: names round-trip, the lists the CLI offers, the error
// for an unknown name.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "han/core/config.h"
#include "han/core/error.h"

using nlohmann::json;

TEST_CASE("enum name tables: every name round-trips, and the names listed for the CLI", "[config]") {
  CHECK(han::enum_names<han::MaskMode>() == std::vector<std::string>{"none", "renorm", "additive"});
  CHECK(han::enum_names<han::BatchStrategy>() == std::vector<std::string>{"bucket", "random"});
  CHECK(han::enum_names<han::DataFormat>() == std::vector<std::string>{"jsonl", "fasttext", "tsv", "folder", "auto"});
  CHECK(han::enum_names<han::Bag>() == std::vector<std::string>{"none", "words"});
  for (const std::string& name : han::enum_names<han::Pooling>())
    CHECK(han::to_string(han::parse_enum<han::Pooling>(name, "k")) == name);
  for (const std::string& name : han::enum_names<han::OptimizerName>())
    CHECK(han::to_string(han::parse_enum<han::OptimizerName>(name, "k")) == name);
  for (const std::string& name : han::enum_names<han::LrSchedule>())
    CHECK(han::to_string(han::parse_enum<han::LrSchedule>(name, "k")) == name);
  REQUIRE_THROWS_WITH(han::parse_enum<han::Pooling>("max\n" + std::string(300, 'z'), "model.pooling"),
                      "model.pooling: must be one of \"attention\", \"mean\", got \"max\\n" + std::string(196, 'z') +
                          "\"...");
  // config_to_json writes the same names config_from_json reads.
  han::Config c;
  c.model.pooling = han::Pooling::mean;
  c.optimizer.schedule = han::LrSchedule::linear;
  const json j = han::config_to_json(c);
  CHECK(j["model"]["pooling"] == "mean");
  CHECK(j["optimizer"]["schedule"] == "linear");
  CHECK(han::config_from_json(j, "x").model.pooling == han::Pooling::mean);
}
