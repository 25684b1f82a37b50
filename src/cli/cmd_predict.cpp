// han predict --model FILE [--format tsv|json|html] [--top-k K] [--explain] [PATH ...]
// Streams: documents are answered in input order, one output line per input line,
// flushed per batch; a batch is answered early when no more input is ready yet.
#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <numeric>

#include "commands.h"
#include "han/infer/classifier.h"
#include "han/text/dataset.h"
#include "han/core/error.h"
#include "han/study/html.h"
#include "han/core/io.h"
#include "han/core/json_text.h"
#include "han/core/limits.h"
#include "han/core/line_reader.h"
#include "han/core/number_text.h"
#include "han/infer/predictor.h"
#include "logging.h"

namespace han::cli {
namespace {

struct PredictArgs {
  std::string model;
  std::string format = "tsv";
  std::string input;  // lines | files | jsonl; default: files for paths, lines for stdin
  int top_k = 1;
  bool explain = false;
  int batch_size = 64;
  int threads = 0;
  std::vector<std::string> paths;
  LogOptions log;
};

// One document to answer: where it came from, what the model read, and any gold label.
struct Item {
  std::string path;  // set for --input files
  std::string gold;
  bool has_gold = false;
  TokenizedText words;
  Document doc;
};

class Output {
 public:
  Output(const PredictArgs& a, const Classifier& c) : a_(a), c_(c) {}

  void write(std::vector<Item>& items, const Matrix& probs, std::vector<Explanation>& explanations) {
    for (std::size_t i = 0; i < items.size(); ++i) {
      const auto top = top_k(probs.col(static_cast<Index>(i)));
      if (a_.format == "html") {
        AttentionView v;
        v.heading = items[i].path.empty() ? "document " + std::to_string(++count_) : items[i].path;
        v.top_k = top;
        v.gold = items[i].gold;
        v.words = std::move(items[i].words);
        v.explanation = std::move(explanations[i]);
        html_ += attention_section(v);
      } else if (a_.format == "json") {
        nlohmann::ordered_json j;  // keys in reading order: path, label, probability, ...
        if (!items[i].path.empty()) j["path"] = items[i].path;
        j["label"] = top[0].first;
        j["probability"] = top[0].second;
        j["top_k"] = nlohmann::ordered_json::array();
        for (const auto& [label, p] : top) j["top_k"].push_back({{"label", label}, {"probability", p}});
        if (items[i].has_gold) j["gold"] = items[i].gold;
        if (a_.explain) j["attention"] = explanation_json(items[i].words, explanations[i]);
        emit(dump_one_line(j));
      } else {
        std::string line = items[i].path.empty() ? "" : items[i].path + "\t";
        for (std::size_t k = 0; k < top.size(); ++k)
          line += (k ? "\t" : "") + top[k].first + "\t" + format_fixed(top[k].second, 4);
        if (items[i].has_gold) line += "\t" + items[i].gold;
        emit(line);
      }
    }
    if (std::fflush(stdout) != 0) throw han::Error(std::string("cannot write output: ") + std::strerror(errno), 1);
  }

  void finish() {
    if (a_.format == "html") {
      const std::string page = html_page("han predictions: " + a_.model,
                                         attention_css(),
                                         "<h1>han predictions</h1><p class=\"legend\">model " + html_escape(a_.model) +
                                             ". Red bars: sentence attention; blue: word attention times the square root "
                                             "of its sentence's weight, relative to the strongest word.</p>\n" + html_);
      emit(page, false);
    }
    if (std::fflush(stdout) != 0 || std::ferror(stdout))
      throw han::Error(std::string("cannot write output: ") + std::strerror(errno), 1);
  }

 private:
  std::vector<std::pair<std::string, double>> top_k(const Eigen::Ref<const Vector>& p) const {
    std::vector<Index> order(p.size());
    std::iota(order.begin(), order.end(), 0);
    const std::size_t k = std::min<std::size_t>(static_cast<std::size_t>(a_.top_k), order.size());
    std::partial_sort(order.begin(), order.begin() + static_cast<long>(k), order.end(),
                      [&](Index x, Index y) { return p(x) > p(y) || (p(x) == p(y) && x < y); });
    std::vector<std::pair<std::string, double>> out;
    for (std::size_t i = 0; i < k; ++i) out.emplace_back(c_.labels[order[i]], p(order[i]));
    return out;
  }

  static nlohmann::ordered_json explanation_json(const TokenizedText& words, const Explanation& e) {
    nlohmann::ordered_json sentences = nlohmann::ordered_json::array();
    for (std::size_t s = 0; s < e.sentence_weights.size(); ++s) {
      nlohmann::ordered_json ws = nlohmann::ordered_json::array();
      for (std::size_t w = 0; w < e.word_weights[s].size(); ++w) ws.push_back({words[s][w], e.word_weights[s][w]});
      sentences.push_back({{"weight", e.sentence_weights[s]}, {"words", ws}});
    }
    return {{"sentences", sentences}};
  }

  void emit(const std::string& s, bool newline = true) {
    if (std::fwrite(s.data(), 1, s.size(), stdout) != s.size() || (newline && std::fputc('\n', stdout) == EOF))
      throw han::Error(std::string("cannot write output: ") + std::strerror(errno), 1);
  }

  const PredictArgs& a_;
  const Classifier& c_;
  std::string html_;
  std::size_t count_ = 0;
};

class Runner {
 public:
  // `total`: how many documents will come, 0 when unknown (lines of a stream).
  Runner(const PredictArgs& a, const Classifier& c, std::int64_t total)
      : a_(a),
        c_(c),
        tokenizer_(c.tokenizer()),
        predictor_(c.params, c.config.model, a.threads),
        out_(a, c),
        progress_(show_progress(a.log), total) {}

  void add(Item item, const std::string& text) {
    item.words = tokenizer_.tokenize(text);
    item.doc = encode_words(item.words, c_.vocab);
    pending_.push_back(std::move(item));
    if (static_cast<int>(pending_.size()) >= a_.batch_size) flush();
  }

  void flush() {
    if (pending_.empty()) return;
    std::vector<Document> docs;
    docs.reserve(pending_.size());
    for (Item& it : pending_) docs.push_back(std::move(it.doc));
    std::vector<Explanation> explanations;
    const bool explain = a_.explain || a_.format == "html";
    const auto start = std::chrono::steady_clock::now();
    const Matrix probs = predictor_.predict(docs, a_.batch_size, explain ? &explanations : nullptr);
    spdlog::debug("{} documents predicted in {:.3f} s", docs.size(),
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    if (!explain) explanations.resize(docs.size());
    out_.write(pending_, probs, explanations);
    answered_ += static_cast<std::int64_t>(pending_.size());
    pending_.clear();
    progress_.update(answered_);
  }

  void finish() {
    flush();
    progress_.finish();
    out_.finish();
  }

 private:
  const PredictArgs& a_;
  const Classifier& c_;
  Tokenizer tokenizer_;
  Predictor predictor_;
  Output out_;
  std::vector<Item> pending_;
  std::int64_t answered_ = 0;
  DocumentProgress progress_;
};

// Each line of fd is a document (lines) or a JSON record (jsonl).
void read_lines(Runner& runner, int fd, const std::string& name, bool jsonl) {
  LineReader reader(fd);
  std::string line;
  while (reader.next(line)) {
    Item item;
    if (!jsonl) {
      runner.add(std::move(item), line);
    } else if (line.find_first_not_of(" \t\r") == std::string::npos && !reader.truncated()) {
      runner.add(std::move(item), "");  // an empty line is an empty document: one answer per line
    } else {
      const std::string where = name + ":" + std::to_string(reader.line_number());
      if (reader.truncated())
        throw han::Error(where + ": " + line_too_long(kMaxLineBytes));
      Example e = parse_jsonl_record(line, where, false);
      item.gold = e.label;
      item.has_gold = e.has_label;
      runner.add(std::move(item), e.text);
    }
    if (!reader.ready()) runner.flush();  // answer what we have while input is idle
  }
}

void run_predict(PredictArgs& a) {
  setup_logging(a.log);
  if (a.top_k < 1) throw han::Error("--top-k: must be at least 1");
  if (a.batch_size < 1) throw han::Error("--batch-size: must be at least 1");
  const bool from_stdin = a.paths.empty() || (a.paths.size() == 1 && a.paths[0] == "-");
  if (a.input.empty()) a.input = from_stdin ? "lines" : "files";
  if (a.input == "files" && from_stdin)
    throw han::Error("--input files needs file paths (stdin is read as lines or jsonl)");
  const Classifier classifier = load_classifier(a.model);
  Runner runner(a, classifier, a.input == "files" ? static_cast<std::int64_t>(a.paths.size()) : 0);
  if (from_stdin) {
    read_lines(runner, STDIN_FILENO, "<stdin>", a.input == "jsonl");
  } else if (a.input == "files") {
    for (const std::string& path : a.paths) {
      Item item;
      item.path = path;
      // A document keeps its first kMaxLineBytes (the caps keep far less anyway).
      ReadOptions options;
      options.max_bytes = kMaxLineBytes;
      options.truncate = true;
      runner.add(std::move(item), read_file(path, options));
    }
  } else {
    for (const std::string& path : a.paths) {
      require_regular_file(path);
      const int fd = ::open(path.c_str(), O_RDONLY);
      if (fd < 0) throw han::Error(path + ": cannot open: " + std::strerror(errno));
      try {
        read_lines(runner, fd, path, a.input == "jsonl");
      } catch (...) {
        ::close(fd);
        throw;
      }
      ::close(fd);
    }
  }
  runner.finish();
}

}  // namespace

void add_predict_command(CLI::App& app) {
  auto args = std::make_shared<PredictArgs>();
  CLI::App* cmd = app.add_subcommand("predict", "Classify documents: files, or stdin one per line");
  cmd->add_option("-m,--model", args->model, "Model file (model.han)")->required()->type_name("FILE");
  cmd->add_option("paths", args->paths, "Documents to classify; none or '-' reads stdin")->type_name("PATH");
  cmd->add_option("-f,--format", args->format, "Output: tsv (label, probability), json (one object per line), html (a page)")
      ->check(CLI::IsMember({"tsv", "json", "html"}))
      ->default_val("tsv");
  cmd->add_option("--data-format", args->input, "lines: one document per line; files: each path one document; jsonl: records with a \"text\" field")
      ->check(CLI::IsMember({"lines", "files", "jsonl"}));
  add_deprecated_alias(*cmd, "-i,--input", args->input, "--data-format")->check(CLI::IsMember({"lines", "files", "jsonl"}));
  cmd->add_option("-k,--top-k", args->top_k, "Best K labels per document")->default_val(1);
  cmd->add_flag("-e,--explain", args->explain, "json: add sentence and word attention weights");
  cmd->add_option("-b,--batch-size", args->batch_size, "Documents per batch (and per output flush)")->default_val(64);
  cmd->add_option("-t,--threads", args->threads, "Threads (0 = all cores)")->default_val(0)->check(CLI::Range(0, 1024));
  add_log_options(*cmd, args->log);
  cmd->callback([args] { run_predict(*args); });
}

}  // namespace han::cli
