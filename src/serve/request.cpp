#include "han/serve/request.h"

#include <nlohmann/json.hpp>

#include "han/core/json_text.h"

namespace han::serve {
namespace {

RequestError bad(const std::string& message) { return RequestError(400, message); }

// nlohmann builds the whole tree: the callback stops a hostile nesting before it grows.
nlohmann::json parse_body(std::string_view body) {
  const auto depth_check = [](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
    if (static_cast<std::size_t>(depth) > kMaxRequestDepth)
      throw bad("the request nests deeper than " + std::to_string(kMaxRequestDepth) + " levels");
    return true;
  };
  try {
    return nlohmann::json::parse(body, depth_check);
  } catch (const nlohmann::json::exception& e) {
    throw bad("the request is not JSON: " + json_error_reason(e));
  }
}

std::string checked_text(const nlohmann::json& v, const std::string& where) {
  if (!v.is_string()) throw bad(where + " must be a string, got " + json_excerpt(v));
  const std::string& text = v.get_ref<const std::string&>();
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) throw bad(where + " is empty");
  return text;  // nlohmann has checked it is UTF-8
}

void read_texts(const nlohmann::json& j, std::size_t max_texts, Request& r) {
  const bool one = j.contains("text"), many = j.contains("texts");
  if (one == many) throw bad("give either \"text\" (one document) or \"texts\" (a list of them)");
  r.single = one;
  if (one) {
    r.texts.push_back(checked_text(j["text"], "\"text\""));
    return;
  }
  const nlohmann::json& list = j["texts"];
  if (!list.is_array()) throw bad("\"texts\" must be a list of strings, got " + json_excerpt(list));
  if (list.empty()) throw bad("\"texts\" is empty");
  if (list.size() > max_texts)
    throw RequestError(413, std::to_string(list.size()) + " texts in one request; at most " +
                                std::to_string(max_texts) + " (--max-texts)");
  for (std::size_t i = 0; i < list.size(); ++i)
    r.texts.push_back(checked_text(list[i], "\"texts\"[" + std::to_string(i) + "]"));
}

void read_options(const nlohmann::json& j, Request& r) {
  if (j.contains("top_k")) {
    const nlohmann::json& k = j["top_k"];
    if (!k.is_number_integer() || k.get<long long>() < 1 || k.get<long long>() > 1000000)
      throw bad("\"top_k\" must be a whole number from 1, got " + json_excerpt(k));
    r.top_k = static_cast<int>(k.get<long long>());
  }
  if (j.contains("threshold")) {
    const nlohmann::json& t = j["threshold"];
    if (!t.is_number() || !(t.get<double>() >= 0.0 && t.get<double>() <= 1.0))
      throw bad("\"threshold\" must be a number from 0 to 1, got " + json_excerpt(t));
    r.threshold = t.get<double>();
  }
}

}  // namespace

Request parse_request(std::string_view body, std::size_t max_texts) {
  const nlohmann::json j = parse_body(body);
  if (!j.is_object()) throw bad("the request must be a JSON object, got " + json_excerpt(j));
  for (const auto& [key, value] : j.items())
    if (key != "text" && key != "texts" && key != "top_k" && key != "threshold")
      throw bad("unknown key " + quote_excerpt(key) + " (known: text, texts, top_k, threshold)");
  Request r;
  read_texts(j, max_texts, r);
  read_options(j, r);
  return r;
}

}  // namespace han::serve
