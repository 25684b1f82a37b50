#include "option_values.h"

#include <algorithm>
#include <sstream>
#include <utility>

#include "han/core/json_text.h"
#include "han/core/suggest.h"

namespace han::cli {

CLI::Validator one_of(const std::vector<std::string>& names) {
  std::string braces, quoted;
  for (const std::string& n : names) {
    braces += (braces.empty() ? "" : ",") + n;
    quoted += (quoted.empty() ? "\"" : ", \"") + n + "\"";
  }
  return CLI::Validator(
      [names, quoted](std::string& value) -> std::string {
        if (std::find(names.begin(), names.end(), value) != names.end()) return "";
        std::vector<std::pair<std::string, std::string>> candidates;
        for (const std::string& n : names) candidates.emplace_back(n, n);
        return "must be one of " + quoted + ", got " + quote_excerpt(value) + suggestion(value, candidates);
      },
      "{" + braces + "}");
}

namespace {

template <class T>
CLI::Validator range_of(T lo, T hi) {
  const CLI::Range range(lo, hi);
  std::ostringstream bounds;
  bounds << lo << " and " << hi;
  return CLI::Validator(
      [range, between = bounds.str()](std::string& value) -> std::string {
        if (range(value).empty()) return "";
        return "must be between " + between + ", got " + quote_excerpt(value);
      },
      range.get_description());
}

}  // namespace

CLI::Validator in_range(double lo, double hi) { return range_of(lo, hi); }
CLI::Validator in_range(int lo, int hi) { return range_of(lo, hi); }

std::vector<std::string> names_in_type(const std::string& type_name) {
  const std::size_t open = type_name.find('{'), close = type_name.find('}', open);
  if (open == std::string::npos || close == std::string::npos) return {};
  std::vector<std::string> names;
  std::string current;
  for (const char c : type_name.substr(open + 1, close - open - 1)) {
    if (c != ',') {
      current += c;
      continue;
    }
    names.push_back(current);
    current.clear();
  }
  names.push_back(current);
  return names;
}

CLI::Option* add_model_option(CLI::App* cmd, std::string& model) {
  return cmd->add_option("-m,--model", model, "Model file (model.han), or a run folder holding one")
      ->required()
      ->type_name("FILE|DIR");
}

}  // namespace han::cli
