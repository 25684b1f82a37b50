#include "serve_routes.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <exception>
#include <string>
#include <vector>

#include "han/core/error.h"
#include "han/core/json_text.h"
#include "han/infer/abstention.h"
#include "han/serve/request.h"
#include "han/text/encoding.h"
#include "han/text/reading.h"
#include "predict_output.h"

namespace han::cli {
namespace {

using serve::RequestError;

const char* kJson = "application/json";

void json_error(httplib::Response& res, int status, const std::string& message) {
  res.status = status;
  res.set_content(dump_one_line(nlohmann::json{{"error", message}}) + "\n", kJson);
}

// Runs a handler, answers what it throws as a JSON error, and counts the request.
template <class Handle>
httplib::Server::Handler counted(ServeState& state, const std::string& path, Handle handle) {
  return [&state, path, handle](const httplib::Request& req, httplib::Response& res) {
    const auto start = std::chrono::steady_clock::now();
    try {
      handle(req, res);
    } catch (const RequestError& e) {
      json_error(res, e.status(), e.what());
    } catch (const han::Error& e) {  // the server is stopping
      json_error(res, 503, e.what());
    } catch (const std::exception& e) {
      spdlog::error("{} {}: {}", req.method, path, e.what());
      json_error(res, 500, std::string("internal error: ") + e.what());
    }
    if (res.status == -1) res.status = 200;  // httplib's "not set": it would send 200
    state.metrics.request(path, res.status, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  };
}

// The rows' layout for this request and model, with han predict's defaults: the top
// label (single), every label over its threshold (multilabel), the number (regression).
RowLayout request_layout(const serve::Request& r, const Classifier& c, bool explain) {
  const Task task = c.head.task;
  if (task == Task::regression && r.top_k > 0)
    throw RequestError(400, "\"top_k\": a regression model answers one number");
  if (task == Task::regression && r.threshold >= 0)
    throw RequestError(400, "\"threshold\": applies to single-label and multi-label models, not regression");
  RowLayout layout;
  layout.format = "json";
  layout.explain = explain;
  layout.top_k = r.top_k > 0 ? static_cast<std::size_t>(r.top_k) : task == Task::multilabel ? c.labels.size() : 1;
  layout.threshold = r.threshold;
  layout.abstain_label = kDefaultAbstainLabel;
  return layout;
}

// Tells the batcher a request is on its way until its documents are handed in (or it
// is refused), so the batch it would join waits for it.
class Arrival {
 public:
  explicit Arrival(serve::Batcher& b) : batcher_(b) { batcher_.arriving(); }
  ~Arrival() {
    if (!handed_) batcher_.not_coming();
  }
  void answer(serve::Job& job) {
    handed_ = true;
    batcher_.answer(job);
  }

 private:
  serve::Batcher& batcher_;
  bool handed_ = false;
};

// POST /v1/predict and /v1/explain: each text answered as han predict --format json
// answers it (the same row, without the line number).
void answer_texts(ServeState& state, const httplib::Request& req, httplib::Response& res, bool explain) {
  Arrival arrival(state.batcher);
  const serve::Request r = serve::parse_request(req.body, state.limits.max_texts);
  serve::Job job;
  job.model = state.model();
  job.explain = explain;
  const serve::ServedModel& m = *job.model;
  const PredictRows rows(request_layout(r, m.classifier, explain), m.classifier);
  std::vector<PredictItem> items(r.texts.size());
  for (std::size_t i = 0; i < r.texts.size(); ++i) {
    if (explain) {  // the words' places in the text, as --explain shows them
      items[i].words = m.tokenizer.tokenize(r.texts[i], items[i].spans);
      items[i].text = r.texts[i];
    } else {
      items[i].words = m.tokenizer.tokenize(r.texts[i]);
    }
    job.docs.push_back(encode_words(items[i].words, m.classifier.vocab, -1, keeps_unknown_words(m.classifier.config.model)));
    cut_to_caps(items[i].words, items[i].spans, m.classifier.caps());  // the words shown are those the HAN reads
  }
  arrival.answer(job);
  std::string body = r.single ? "" : "{\"predictions\":[";
  const Explanation none;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const Index col = static_cast<Index>(i);
    body += (i ? "," : "") + rows.json_row(items[i], rows.answer(job.probs.col(col)), explain ? job.explanations[i] : none);
  }
  res.set_content(body + (r.single ? "\n" : "]}\n"), kJson);
}

void add_state_routes(httplib::Server& server, ServeState& state) {
  server.Get("/healthz", counted(state, "/healthz", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("{\"status\":\"ok\"}\n", kJson);
  }));
  server.Get("/readyz", counted(state, "/readyz", [&state](const httplib::Request&, httplib::Response& res) {
    if (state.stopping) return json_error(res, 503, "the server is stopping");
    res.set_content(dump_one_line(nlohmann::json{{"status", "ready"}, {"model", state.model()->path}}) + "\n", kJson);
  }));
  server.Get("/metrics", counted(state, "/metrics", [&state](const httplib::Request&, httplib::Response& res) {
    res.set_content(state.metrics.text(), "text/plain; version=0.0.4");
  }));
  server.Get("/v1/model", counted(state, "/v1/model", [&state](const httplib::Request&, httplib::Response& res) {
    res.set_content(state.model()->info.dump() + "\n", kJson);  // as han info --json prints it
  }));
  server.Post("/v1/reload", counted(state, "/v1/reload", [&state](const httplib::Request&, httplib::Response& res) {
    if (!state.limits.allow_reload)
      return json_error(res, 403, "reloading over HTTP is off; start han serve with --allow-reload, or send SIGHUP");
    const std::string error = state.reload();
    if (!error.empty()) return json_error(res, 409, "reload refused, the model loaded before serves on: " + error);
    const auto m = state.model();
    res.set_content(dump_one_line(nlohmann::json{{"reloaded", m->path}, {"load_seconds", m->load_seconds}}) + "\n", kJson);
  }));
}

// A known path asked with the wrong method: 405, naming the right one.
void add_wrong_methods(httplib::Server& server) {
  const auto wrong = [](const char* method) {
    return [method](const httplib::Request& req, httplib::Response& res) {
      json_error(res, 405, req.path + " answers " + method + " only");
      res.set_header("Allow", method);
    };
  };
  for (const char* path : {"/v1/predict", "/v1/explain", "/v1/reload"}) server.Get(path, wrong("POST"));
  for (const char* path : {"/v1/model", "/healthz", "/readyz", "/metrics"}) server.Post(path, wrong("GET"));
}

// A body shorter than its Content-Length: httplib gave up reading it (the client stalled
// past --timeout, or hung up).
bool body_cut_short(const httplib::Request& req) {
  if (!req.has_header("Content-Length")) return false;
  const std::string length = req.get_header_value("Content-Length");
  return length.find_first_not_of("0123456789") == std::string::npos && length.size() < 19 &&
         req.body.size() < std::stoull(length);
}

// httplib's own refusals (unknown path, body over the limit, a bad request line, a body
// that stopped coming) get a JSON body too; the handlers' errors already have one.
void answer_refusals(httplib::Server& server, ServeState& state) {
  server.set_error_handler([&state](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    std::string message = "the request was refused (HTTP status " + std::to_string(res.status) + ")";
    if (res.status == 400) message = "the request is not well-formed HTTP (a POST needs a Content-Length)";
    if (res.status == 400 && body_cut_short(req)) {  // the connection is not worth keeping
      res.status = 408;
      message = "the request body stopped coming for longer than --timeout";
      res.set_header("Connection", "close");
    }
    if (res.status == 404) message = "no such path: " + req.path;
    if (res.status == 413) message = "the request body is over the limit (--max-body)";
    json_error(res, res.status, message);
    state.metrics.request("other", res.status, 0);
  });
  server.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
    json_error(res, 500, "internal error");
  });
}

}  // namespace

void add_routes(httplib::Server& server, ServeState& state) {
  server.Post("/v1/predict", counted(state, "/v1/predict", [&state](const httplib::Request& req, httplib::Response& res) {
    answer_texts(state, req, res, false);
  }));
  server.Post("/v1/explain", counted(state, "/v1/explain", [&state](const httplib::Request& req, httplib::Response& res) {
    answer_texts(state, req, res, true);
  }));
  add_state_routes(server, state);
  add_wrong_methods(server);
  answer_refusals(server, state);
}

}  // namespace han::cli
