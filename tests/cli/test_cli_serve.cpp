// han serve as a user runs it: the real binary on a free loopback port, talked to over
// HTTP. Its answers are han predict's and han info's, batched or not; bad requests get a
// JSON error and their status while the server goes on; reloads drop no request; SIGTERM
// finishes what is in flight and exits 0.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <thread>

#include "support/cli_fixture.h"
#include "support/paths.h"
#include "support/raw_http.h"
#include "support/run.h"
#include "support/serve.h"

using namespace han::test;
using nlohmann::json;

namespace {

// The first n texts of the bundled test set that han predict reads as one line each (no
// control characters: a carriage return would end a line).
std::vector<std::string> test_texts(std::size_t n) {
  std::vector<std::string> out;
  for (const std::string& line : lines_of(slurp(source_path("data/test.jsonl")))) {
    if (out.size() == n) break;
    const std::string text = json::parse(line)["text"].get<std::string>();
    if (std::none_of(text.begin(), text.end(), [](char ch) { return static_cast<unsigned char>(ch) < 0x20; }))
      out.push_back(text);
  }
  return out;
}

// han predict's rows for the texts (stdin, one per line) without their line number.
std::vector<std::string> predict_rows(const std::string& model, const std::vector<std::string>& texts,
                                      const std::string& options = "") {
  std::string input;
  for (const std::string& t : texts) input += t + "\n";
  const RunResult r = run(han_cmd("predict -m " + model + " --data-format lines --format json " + options), input);
  REQUIRE(r.exit_code == 0);
  std::vector<std::string> rows;
  for (const std::string& row : lines_of(r.out)) rows.push_back(std::regex_replace(row, std::regex("^\\{\"id\":[0-9]+,"), "{"));
  return rows;
}

std::string one_text(const std::string& text, const std::string& more = "") {
  return json{{"text", text}}.dump().insert(1, more);
}

std::string many_texts(const std::vector<std::string>& texts) { return json{{"texts", texts}}.dump(); }

// The answer of POST path; status and body.
std::pair<int, std::string> post(httplib::Client& c, const std::string& path, const std::string& body) {
  const auto res = c.Post(path.c_str(), body, "application/json");
  REQUIRE(res);
  return {res->status, res->body};
}

// A list answer's rows as predict prints them, one per line.
std::vector<std::string> rows_of_list(const std::string& body) {
  std::vector<std::string> rows;
  const nlohmann::ordered_json list = nlohmann::ordered_json::parse(body);  // keys in their order
  for (const nlohmann::ordered_json& row : list["predictions"]) rows.push_back(row.dump());
  return rows;
}

// Two rows with the same labels in the same order and probabilities within float rounding.
bool same_answer(const std::string& a, const std::string& b) {
  const json x = json::parse(a), y = json::parse(b);
  if (x["label"] != y["label"] || x["top_k"].size() != y["top_k"].size()) return false;
  for (std::size_t k = 0; k < x["top_k"].size(); ++k)
    if (x["top_k"][k]["label"] != y["top_k"][k]["label"] ||
        std::abs(x["top_k"][k]["probability"].get<double>() - y["top_k"][k]["probability"].get<double>()) > 1e-6)
      return false;
  return true;
}

}  // namespace

// han links no HTTP library: han serve runs han-serve in its place (src/cli/serve_run.h).
TEST_CASE("han serve without han-serve beside it says where it looked for it, and serves nothing", "[cli][serve]") {
  const CliFixture& f = cli_fixture();
  TempDir dir;
  std::filesystem::create_directories(dir.file("alone"));
  std::filesystem::copy_file(han_binary(), dir.file("alone/han"));
  std::filesystem::permissions(dir.file("alone/han"), std::filesystem::perms::owner_all);
  const RunResult r = run(dir.file("alone/han") + " serve --port 0 --model " + f.model);
  CHECK(r.exit_code == 2);
  CHECK(r.err.rfind("han: error: han's serve program han-serve cannot be found: tried ", 0) == 0);
  CHECK(r.err.find(dir.file("alone/han-serve") + " (absent)") != std::string::npos);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK(r.out.empty());
}

TEST_CASE("serve answers /v1/predict as han predict --format json answers, byte for byte", "[cli][serve]") {
  const CliFixture& f = cli_fixture();
  const std::vector<std::string> texts = test_texts(12);
  ServeProcess server({"-m", f.model});
  auto c = server.client();
  const std::vector<std::string> rows = predict_rows(f.model, texts);
  // A text alone in its pass answers what predict answers for it alone (a batch of 12 may
  // differ in the last bits: docs/serve.md).
  for (std::size_t i = 0; i < texts.size(); ++i) {
    const auto [status, body] = post(*c, "/v1/predict", one_text(texts[i]));
    CHECK(status == 200);
    CHECK(body == predict_rows(f.model, {texts[i]})[0] + "\n");
    CHECK(same_answer(body, rows[i]));
  }
  const auto [status, body] = post(*c, "/v1/predict", many_texts(texts));
  CHECK(status == 200);
  CHECK(rows_of_list(body) == rows);
  // And with predict's options: -k 2 and --threshold.
  CHECK(post(*c, "/v1/predict", one_text(texts[0], "\"top_k\":2,")).second == predict_rows(f.model, {texts[0]}, "-k 2")[0] + "\n");
  CHECK(post(*c, "/v1/predict", one_text(texts[1], "\"threshold\":0.99,")).second ==
        predict_rows(f.model, {texts[1]}, "--threshold 0.99")[0] + "\n");
  CHECK(server.stop() == 0);
}

TEST_CASE("serve answers /v1/explain as predict --explain and /v1/model as han info --json", "[cli][serve]") {
  const CliFixture& f = cli_fixture();
  const std::vector<std::string> texts = test_texts(3);
  ServeProcess server({"-m", f.model});
  auto c = server.client();
  const auto [status, body] = post(*c, "/v1/explain", many_texts(texts));
  CHECK(status == 200);
  CHECK(rows_of_list(body) == predict_rows(f.model, texts, "--explain"));
  const auto model = c->Get("/v1/model");
  REQUIRE(model);
  CHECK(model->status == 200);
  CHECK(model->body == run(han_cmd("info --json -m " + f.model)).out);
  for (const char* path : {"/healthz", "/readyz"}) {
    const auto res = c->Get(path);
    REQUIRE(res);
    CHECK(res->status == 200);
  }
  CHECK(server.stop() == 0);
}

TEST_CASE("serve answers concurrent requests batched as it answers each alone", "[cli][serve]") {
  const CliFixture& f = cli_fixture();
  const std::vector<std::string> texts = test_texts(24);
  ServeProcess server({"-m", f.model, "--max-batch", "16", "--max-wait-ms", "50"});
  auto c = server.client();
  std::vector<std::string> alone;  // one request at a time: each a batch of one
  for (const std::string& t : texts) alone.push_back(post(*c, "/v1/predict", one_text(t)).second);
  // All in one request: batches of 16 and 8, padded to their longest document. Masking
  // makes the answers those of each text alone; a pass of another size may sum the matrix
  // products in another order (a one-column product is Eigen's matrix-vector one), so
  // the labels are the same and the probabilities agree to the last bits.
  std::vector<std::string> listed = rows_of_list(post(*c, "/v1/predict", many_texts(texts)).second);
  REQUIRE(listed.size() == alone.size());
  for (std::size_t i = 0; i < texts.size(); ++i) {
    INFO("text " << i << ": " << listed[i] << " alone: " << alone[i]);
    CHECK(same_answer(listed[i] + "\n", alone[i]));
  }
  // Many clients at once.
  std::vector<std::string> together(texts.size());
  std::vector<std::thread> clients;
  std::atomic<int> failed{0};
  for (std::size_t i = 0; i < texts.size(); ++i)
    clients.emplace_back([&, i] {
      auto own = server.client();
      const auto res = own->Post("/v1/predict", one_text(texts[i]), "application/json");
      if (!res || res->status != 200) ++failed;
      else together[i] = res->body;
    });
  for (std::thread& t : clients) t.join();
  CHECK(failed == 0);
  // Passes of other sizes may sum the matrix products in another order (as han predict's
  // batches of another --batch-size do): the same labels, probabilities to the last bits.
  for (std::size_t i = 0; i < texts.size(); ++i) {
    INFO("text " << i << ": " << together[i] << " alone: " << alone[i]);
    CHECK(same_answer(together[i], alone[i]));
  }
  const auto metrics = c->Get("/metrics");
  REQUIRE(metrics);
  CHECK(metrics->body.find("han_batch_size_bucket{le=\"16\"}") != std::string::npos);
  CHECK(metrics->body.find("han_requests_total{path=\"/v1/predict\",code=\"200\"} 49") != std::string::npos);
  CHECK(server.stop() == 0);
}

namespace {

// The body a corpus case sends.
std::string case_body(const json& k) {
  if (k.contains("nest")) return std::string(k["nest"].get<std::size_t>(), '[') + std::string(k["nest"].get<std::size_t>(), ']');
  if (k.contains("text_bytes")) return one_text(std::string(k["text_bytes"].get<std::size_t>(), 'a'));
  std::string body = k.value("body", "");
  if (!k.value("latin1", false)) return body;
  std::string bytes;  // each character below 256 as one byte: invalid UTF-8 on purpose
  const std::u32string wide = [&] {
    std::u32string w;
    for (std::size_t i = 0; i < body.size();) {
      const unsigned char b = static_cast<unsigned char>(body[i]);
      const int n = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
      char32_t cp = n == 1 ? b : b & (0xFF >> (n + 1));
      for (int j = 1; j < n; ++j) cp = (cp << 6) | (static_cast<unsigned char>(body[i + j]) & 0x3F);
      w += cp;
      i += static_cast<std::size_t>(n);
    }
    return w;
  }();
  for (char32_t cp : wide) bytes += static_cast<char>(cp);
  return bytes;
}

}  // namespace

TEST_CASE("serve answers every bad request of tests/serve/bad_requests.json with its status and goes on", "[cli][serve]") {
  const CliFixture& f = cli_fixture();
  ServeProcess server({"-m", f.model, "--max-body", "16KB", "--max-texts", "4"});
  auto c = server.client();
  for (const json& k : json::parse(slurp(source_path("tests/serve/bad_requests.json")))) {
    INFO(k["name"].get<std::string>());
    const std::string path = k["path"];
    const auto res = k.value("method", "POST") == "GET" ? c->Get(path.c_str())
                                                         : c->Post(path.c_str(), case_body(k), "application/json");
    REQUIRE(res);
    CHECK(res->status == k["status"].get<int>());
    INFO(res->body);
    const json error = json::parse(res->body);
    CHECK(error["error"].get<std::string>().find(k["says"].get<std::string>()) != std::string::npos);
    CHECK(c->Get("/healthz")->status == 200);
  }
  CHECK(c->Get("/healthz")->status == 200);
  const std::string metrics = c->Get("/metrics")->body;
  CHECK(metrics.find("han_request_errors_total 0") == std::string::npos);
  CHECK(server.stop() == 0);
}

TEST_CASE("serve reloads on SIGHUP under load without dropping a request, refusing a half-written model",
          "[cli][serve]") {
  const CliFixture& f = cli_fixture();
  TempDir dir;
  const std::string good = slurp(f.model);
  const std::string model = dir.write("model.han", good);
  ServeProcess server({"-m", model, "--allow-reload"});
  const std::vector<std::string> texts = test_texts(8);
  std::atomic<bool> done{false};
  std::atomic<int> answered{0}, failed{0};
  std::vector<std::thread> clients;
  for (int k = 0; k < 4; ++k)
    clients.emplace_back([&, k] {
      auto c = server.client();
      for (std::size_t i = 0; !done || i < 4; ++i) {
        const auto res = c->Post("/v1/predict", one_text(texts[(i + k) % texts.size()]), "application/json");
        if (res && res->status == 200) ++answered;
        else ++failed;
      }
    });
  auto c = server.client();
  dir.write("model.han", good.substr(0, good.size() / 2));  // half written
  server.signal(SIGHUP);
  REQUIRE(server.wait_for_log("reload refused"));
  CHECK(post(*c, "/v1/reload", "").first == 409);
  dir.write("model.han.new", good);
  std::filesystem::rename(dir.file("model.han.new"), model);  // written whole, then moved in place
  server.signal(SIGHUP);
  REQUIRE(server.wait_for_log("han: reloaded"));
  CHECK(post(*c, "/v1/reload", "").first == 200);
  done = true;
  for (std::thread& t : clients) t.join();
  CHECK(failed == 0);
  CHECK(answered >= 16);
  const std::string metrics = c->Get("/metrics")->body;
  CHECK(metrics.find("han_model_reloads_total{result=\"ok\"} 2") != std::string::npos);
  CHECK(metrics.find("han_model_reloads_total{result=\"refused\"} 2") != std::string::npos);
  CHECK(server.stop() == 0);
}

TEST_CASE("serve finishes the requests in flight on SIGTERM and exits 0", "[cli][serve]") {
  const CliFixture& f = cli_fixture();
  ServeProcess server({"-m", f.model});
  const std::string body = one_text(test_texts(1)[0]);
  RawConnection raw(server.port());
  // "100 Continue" says the server is reading this request: SIGTERM comes while it is.
  raw.send("POST /v1/predict HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nExpect: 100-continue\r\n"
           "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n");
  CHECK(raw.read_reply().find("100 Continue") != std::string::npos);
  server.signal(SIGTERM);
  REQUIRE(server.wait_for_log("finishing the requests in flight"));
  raw.send(body);
  const std::string reply = raw.read_until_closed();  // the answer, then the close: the server is stopping
  CHECK(reply.find("HTTP/1.1 200") == 0);
  CHECK(reply.find("\"label\"") != std::string::npos);
  CHECK(server.stop(SIGTERM) == 0);
}

TEST_CASE("serve refuses a bad model, a bad --max-body and a port in use with one line", "[cli][serve]") {
  const CliFixture& f = cli_fixture();
  const RunResult missing = run(han_cmd("serve -m /nonexistent/model.han --port 0"));
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.find("han: error: ") == 0);
  const RunResult body = run(han_cmd("serve -m " + f.model + " --port 0 --max-body lots"));
  CHECK(body.exit_code == 2);
  CHECK(body.err.find("--max-body") != std::string::npos);
  ServeProcess server({"-m", f.model});
  const RunResult taken = run(han_cmd("serve -m " + f.model + " --port " + std::to_string(server.port())));
  CHECK(taken.exit_code == 1);
  CHECK(taken.err.find("cannot listen on 127.0.0.1:" + std::to_string(server.port())) != std::string::npos);
  CHECK(server.stop(SIGINT) == 0);
}
