// The request reader of han serve: what it accepts, and the status and message of what it
// refuses (the HTTP tests in tests/cli/test_cli_serve.cpp send these through the server).
#include <catch2/catch.hpp>

#include <string>

#include "han/serve/request.h"

using han::serve::parse_request;
using han::serve::Request;
using han::serve::RequestError;

namespace {

// The status a body is refused with, and its message; 0 when accepted.
std::pair<int, std::string> refusal(const std::string& body, std::size_t max_texts = 4) {
  try {
    parse_request(body, max_texts);
  } catch (const RequestError& e) {
    return {e.status(), e.what()};
  }
  return {0, ""};
}

}  // namespace

TEST_CASE("serve request: one text or a list of them, with top_k and threshold", "[serve]") {
  const Request one = parse_request(R"({"text": "A fine film."})", 4);
  CHECK(one.single);
  CHECK(one.texts == std::vector<std::string>{"A fine film."});
  CHECK(one.top_k == 0);
  CHECK(one.threshold < 0);
  const Request many = parse_request(R"({"texts": ["a", "b c"], "top_k": 2, "threshold": 0.5})", 4);
  CHECK_FALSE(many.single);
  CHECK(many.texts.size() == 2);
  CHECK(many.top_k == 2);
  CHECK(many.threshold == 0.5);
}

TEST_CASE("serve request: bad bodies are refused with 400, too many texts with 413", "[serve]") {
  const std::pair<const char*, const char*> cases[] = {
      {"", "not JSON"},
      {"{\"text\": ", "not JSON"},
      {"[1, 2]", "must be a JSON object"},
      {"{}", "either \"text\""},
      {R"({"text": "a", "texts": ["b"]})", "either \"text\""},
      {R"({"text": 7})", "\"text\" must be a string"},
      {R"({"text": "  \n"})", "\"text\" is empty"},
      {R"({"texts": "a"})", "must be a list"},
      {R"({"texts": []})", "\"texts\" is empty"},
      {R"({"texts": ["a", null]})", "\"texts\"[1] must be a string"},
      {R"({"text": "a", "top_k": 0})", "\"top_k\""},
      {R"({"text": "a", "top_k": 1.5})", "\"top_k\""},
      {R"({"text": "a", "threshold": 2})", "\"threshold\""},
      {R"({"text": "a", "threshold": "high"})", "\"threshold\""},
      {R"({"text": "a", "extra": 1})", "unknown key \"extra\""},
      {"{\"text\": \"\xff\xfe\"}", "not JSON"},
  };
  for (const auto& [body, says] : cases) {
    INFO(body);
    const auto [status, message] = refusal(body);
    CHECK(status == 400);
    CHECK(message.find(says) != std::string::npos);
    CHECK(message.find('\n') == std::string::npos);
  }
  CHECK(refusal(R"({"texts": ["a", "b", "c", "d", "e"]})").first == 413);
  CHECK(refusal(std::string(100000, '[') + std::string(100000, ']')).first == 400);  // nesting: refused, not recursed
}
