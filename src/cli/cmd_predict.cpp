// han predict --model FILE [--format tsv|json|html] [--top-k K] [--explain] [PATH ...]
// Streams: documents are answered in input order, one output line per input line,
// flushed per batch; a batch is answered early when no more input is ready yet. A record
// that cannot be read ends the run only after everything read before it is answered.
// Reading and tokenizing the next batches overlaps answering this one (see Runner).
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <optional>

#include "commands.h"
#include "han/core/answering_thread.h"
#include "han/core/error.h"
#include "han/core/input_stream.h"
#include "han/core/limits.h"
#include "han/core/line_reader.h"
#include "han/core/text_decoding.h"
#include "han/core/parallel.h"
#include "han/infer/abstention.h"
#include "han/infer/classifier.h"
#include "han/infer/predictor.h"
#include "han/text/data_format.h"
#include "han/text/dataset.h"
#include "han/text/encoding.h"
#include "han/text/reading.h"
#include "logging.h"
#include "option_values.h"
#include "predict_output.h"

namespace han::cli {
namespace {

struct PredictArgs {
  std::string model;
  std::string format = "tsv";
  std::string input;  // lines | files | jsonl | fasttext | tsv; "": told from each source's first line
  std::string on_error = "stop";
  int top_k = 1;
  bool top_k_given = false;  // multi-label models answer every label reaching its threshold unless -k caps them
  double threshold = -1;  // multilabel: one threshold for every label; single: abstain below it; < 0: the model's
  std::string abstain_label;  // "": kDefaultAbstainLabel
  bool explain = false;
  int batch_size = 64;
  int threads = 0;
  std::string encoding = "auto";
  std::vector<std::string> paths;
  LogOptions log;
};

// Bad records are each named on stderr up to this many; the rest only counted at the end.
constexpr std::int64_t kShownBadRecords = 10;

// Builds batches of documents as they are read and answers them (predicts, writes, counts
// them on the progress bar): on an answering thread when more than one thread is allowed,
// so reading overlaps computing (see AnsweringThread).
class Runner {
 public:
  // `total`: how many documents will come, 0 when unknown (lines of a stream).
  Runner(const PredictArgs& a, const Classifier& c, const RowLayout& layout, std::int64_t total)
      : a_(a),
        c_(c),
        tokenizer_(c.tokenizer()),
        predictor_(c.members(), c.config.model, a.threads, c.head, c.weighted_linear_member()),
        out_(layout, c, a.model),
        progress_(show_progress(a.log), total),
        answering_([this](std::vector<PredictItem>& batch) { answer(batch); }, resolve_threads(a.threads) > 1,
                   kBatchesAhead) {}

  void add(PredictItem item, const std::string& text) {
    if (a_.format == "html" || a_.explain) {  // the page and --explain show the text as written
      item.words = tokenizer_.tokenize(text, item.spans);
      item.text = text;
    } else {
      item.words = tokenizer_.tokenize(text);
    }
    item.doc = encode_words(item.words, c_.vocab, -1, keeps_unknown_words(c_.config.model));
    cut_to_caps(item.words, item.spans, c_.caps());  // the words shown are those the HAN reads
    queue(std::move(item));
  }

  // A record that cannot be read: with --on-error skip it is answered in place by an
  // error row; otherwise the error ends the run (after finish()).
  void bad_record(PredictItem item, const han::Error& e) {
    if (a_.on_error != "skip") throw e;
    if (++bad_ <= kShownBadRecords) spdlog::warn("skipped {}", e.what());
    item.error = e.what();
    queue(std::move(item));
  }

  // Hands the documents read so far over to be answered.
  void flush() {
    if (pending_.empty()) return;
    std::vector<PredictItem> batch;
    batch.swap(pending_);
    answering_.submit(std::move(batch));
  }

  // Answers everything read; rethrows the first error in answering (a failed write), which
  // is never retried. Also called before an input error ends the run.
  void finish() {
    flush();
    answering_.finish();
    progress_.finish();
    out_.finish();
    if (bad_ > kShownBadRecords) spdlog::warn("{} bad records skipped in all ({} not named above)", bad_, bad_ - kShownBadRecords);
  }

  // After finish() (good_ is the answering side's).
  std::int64_t good() const { return good_; }
  std::int64_t bad() const { return bad_; }

 private:
  void queue(PredictItem item) {
    pending_.push_back(std::move(item));
    if (static_cast<int>(pending_.size()) >= a_.batch_size) flush();
  }

  void answer(std::vector<PredictItem>& batch) {
    Documents docs(c_.vocab.size());
    docs.set_caps(c_.caps());
    if (keeps_unknown_words(c_.config.model)) docs.keep_unknown_words();
    for (PredictItem& it : batch)
      if (it.error.empty()) docs.push_back(it.doc);
    std::vector<Explanation> explanations;
    const bool explain = a_.explain || a_.format == "html";
    const auto start = std::chrono::steady_clock::now();
    const Matrix probs = docs.empty() ? Matrix() : predictor_.predict(docs, a_.batch_size, explain ? &explanations : nullptr);
    spdlog::debug("{} documents predicted in {:.3f} s", docs.size(),
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    if (!explain) explanations.resize(docs.size());
    out_.write(batch, probs, explanations);
    answered_ += static_cast<std::int64_t>(batch.size());
    good_ += static_cast<std::int64_t>(docs.size());
    progress_.update(answered_);
  }

  // Batches read ahead of the one being answered.
  static constexpr std::size_t kBatchesAhead = 2;

  const PredictArgs& a_;
  const Classifier& c_;
  Tokenizer tokenizer_;
  Predictor predictor_;
  PredictOutput out_;
  std::vector<PredictItem> pending_;          // the reading side's
  std::int64_t bad_ = 0;                      // the reading side's
  std::int64_t answered_ = 0, good_ = 0;      // the answering side's
  DocumentProgress progress_;
  AnsweringThread<std::vector<PredictItem>> answering_;  // last: its thread uses the members above
};

// A whole file (or all of stdin) as one document: its first kMaxLineBytes (the caps keep
// far less anyway); the rest is not read.
std::string read_document(const std::string& path, TextEncoding encoding) {
  InputStream in(path);
  std::string text;
  char chunk[1 << 16];
  while (text.size() < kMaxLineBytes) {
    const std::size_t n = in.read(chunk, std::min(sizeof chunk, kMaxLineBytes - text.size()));
    if (n == 0) break;
    text.append(chunk, n);
  }
  TextDecoder decoder(encoding);
  decoder.decode(text);
  for (const std::string& w : decoder.warnings(input_name(path), "file")) spdlog::warn("{}", w);
  return text;
}

void read_document_file(Runner& runner, const std::string& path, TextEncoding encoding) {
  PredictItem item;
  item.path = input_name(path);
  std::string text;
  try {
    text = read_document(path, encoding);
  } catch (const han::Error& e) {
    runner.bad_record(std::move(item), e);
    return;
  }
  runner.add(std::move(item), text);
}

// The record's "id" passed through as the same JSON value; a missing or null one leaves
// the line number.
void take_record_id(PredictItem& item, const Example& e, const std::string& where) {
  if (e.id_type == "string") item.id = e.id;
  else if (e.id_type == "integer" || e.id_type == "float") item.id = nlohmann::ordered_json::parse(e.id);
  else if (!e.id_type.empty() && e.id_type != "null")
    throw han::Error(where + ": \"id\" must be a string or a number, got " + e.id_type);
}

// One line of a record format: a record, or an empty document for a blank line (one answer
// per line). A JSON record cut short cannot be read; the other formats keep what was read.
void read_record(Runner& runner, PredictItem item, const std::string& line, bool truncated, const std::string& where,
                 DataFormat format, const LabelOptions& gold) {
  if (line.find_first_not_of(" \t\r") == std::string::npos && !truncated) return runner.add(std::move(item), "");
  std::optional<Example> e;
  try {
    if (truncated && format == DataFormat::jsonl) throw han::Error(where + ": " + line_too_long(kMaxLineBytes));
    e = parse_record(line, where, format, gold);
    take_record_id(item, *e, where);
  } catch (const han::Error& error) {
    return runner.bad_record(std::move(item), error);
  }
  item.gold = std::move(e->label);
  item.has_gold = e->has_label;
  runner.add(std::move(item), e->text);
}

// The next line, or false at the end; a read error names the source and the line.
bool next_line(LineReader& reader, std::string& line, const InputStream& in) {
  try {
    return reader.next(line);
  } catch (const han::Error& e) {
    const std::string what = e.what(), prefix = in.name() + ": ";
    const std::string reason = what.rfind(prefix, 0) == 0 ? what.substr(prefix.size()) : what;
    throw han::Error(in.name() + ":" + std::to_string(reader.line_number() + 1) + ": " + reason, e.exit_code());
  }
}

// The record format a line of a source is in, when --data-format is not given: a JSON
// object with a "text" string, or a line starting with __label__ (fastText); otherwise
// nullopt (text). Its labels are then ignored, as fastText's predict ignores them.
std::optional<DataFormat> record_format_of(std::string_view line) {
  const std::optional<DataFormat> f = format_of_line(line);
  if (f == DataFormat::fasttext) return f;
  if (f != DataFormat::jsonl) return std::nullopt;
  const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
  if (j.is_object() && j.contains("text") && j["text"].is_string()) return f;
  return std::nullopt;
}

void say_records(const std::string& name, DataFormat f) {
  spdlog::info("{}: {}; --data-format lines reads each line as text", name,
               f == DataFormat::jsonl ? "JSON records: their \"text\" is read" : "fastText lines: their labels are ignored");
}

// The record format of a file by its first non-blank line (see record_format_of).
std::optional<DataFormat> record_format_of_file(const std::string& path) {
  InputStream in(path);
  LineReader reader(in);
  std::string line;
  while (reader.next(line))
    if (line.find_first_not_of(" \t\r") != std::string::npos) return record_format_of(line);
  return std::nullopt;
}

// Each line of the source is a document (lines) or a record (jsonl, fasttext, tsv);
// `format` nullopt: told from the first non-blank line. Every byte of a line is text in
// lines mode (a line that is not UTF-8 is decoded as --encoding says, NUL bytes act as
// separators, an over-long line keeps its first kMaxLineBytes): only a read error stops it.
// One warning per source counts the lines that were not UTF-8.
void read_lines(Runner& runner, const std::string& path, std::optional<DataFormat> format, bool told,
                bool name_rows, const LabelOptions& gold) {
  InputStream in(path);
  const std::string& name = in.name();
  LineReader reader(in);
  TextDecoder decoder(gold.encoding);
  std::string line;
  bool decided = told;
  while (next_line(reader, line, in)) {
    decoder.decode(line);
    PredictItem item;
    if (name_rows) item.path = name;
    item.id = reader.line_number();
    if (!decided && line.find_first_not_of(" \t\r") != std::string::npos) {
      decided = true;
      format = record_format_of(line);
      if (format) say_records(name, *format);
    }
    if (format)
      read_record(runner, std::move(item), line, reader.truncated(), name + ":" + std::to_string(reader.line_number()),
                  *format, gold);
    else runner.add(std::move(item), line);
    if (!reader.ready()) runner.flush();  // answer what we have while input is idle
  }
  for (const std::string& w : decoder.warnings(name)) spdlog::warn("{}", w);
}

void check_args(PredictArgs& a) {
  if (a.top_k < 1) throw han::Error("--top-k: must be at least 1");
  if (a.batch_size < 1) throw han::Error("--batch-size: must be at least 1");
  if (a.explain && a.format == "tsv")
    throw han::Error("--explain needs --format json or html (tsv has no columns for attention weights)");
  if (std::count(a.paths.begin(), a.paths.end(), "-") > 1)
    throw han::Error("'-' is given more than once: stdin can be read only once");
  if (a.input == "files" && a.paths.empty())
    throw han::Error("--data-format files needs file paths, or '-' for all of stdin as one document");
  if (a.paths.empty()) a.paths.push_back("-");
}

// How one source is read: whole as one document, or line by line as text or records.
struct Source {
  std::string path;
  bool whole = false;
  std::optional<DataFormat> records;  // nullopt: lines of text (or whole)
  bool told = true;                   // false: stdin, told from its first line as it comes
};

// --data-format as given; without it a file is one document unless its first line is a
// record (record_format_of), and stdin alone is lines of text or records by its first line
// ('-' among files is one document, as the files are).
std::vector<Source> plan_sources(const PredictArgs& a) {
  const bool stdin_alone = a.paths == std::vector<std::string>{"-"};
  std::vector<Source> out;
  for (const std::string& path : a.paths) {
    Source s;
    s.path = path;
    if (a.input == "files" || (a.input.empty() && !stdin_alone && is_stdin_name(path))) s.whole = true;
    else if (a.input == "jsonl" || a.input == "fasttext" || a.input == "tsv") s.records = parse_enum<DataFormat>(a.input, "--data-format");
    else if (a.input.empty() && is_stdin_name(path)) s.told = false;
    else if (a.input.empty()) {
      try {
        s.records = record_format_of_file(path);
      } catch (const han::Error&) {
        // unreadable: read whole, to be reported as a bad document in its place
      }
      s.whole = !s.records;
      if (s.records) say_records(path, *s.records);
    }
    out.push_back(s);
  }
  return out;
}

void read_sources(Runner& runner, const std::vector<Source>& sources, bool name_rows, const LabelOptions& gold) {
  for (const Source& s : sources) {
    if (s.whole) read_document_file(runner, s.path, gold.encoding);
    else read_lines(runner, s.path, s.records, s.told, name_rows, gold);
  }
}

// The number of documents to come when every source is one, else 0 (unknown).
std::int64_t documents_to_come(const std::vector<Source>& sources) {
  const bool all_whole = std::all_of(sources.begin(), sources.end(), [](const Source& s) { return s.whole; });
  return all_whole ? static_cast<std::int64_t>(sources.size()) : 0;
}

// --threshold: every label's (multilabel) or the top probability to answer at all (single);
// --abstain-label: what single-label models answer below it, not one of their labels.
std::string check_threshold(const PredictArgs& a, const Classifier& c) {
  const Task task = c.head.task;
  if (a.threshold >= 0 && task == Task::regression)
    throw han::Error("--threshold: applies to single-label and multi-label models; " + a.model + " is a regression model");
  if (a.abstain_label.empty()) return kDefaultAbstainLabel;
  if (task != Task::single)
    throw han::Error("--abstain-label: applies to single-label models; " + a.model + " is a " + to_string(task) + " model");
  if (a.threshold < 0) throw han::Error("--abstain-label: needs --threshold P (abstain when the top probability is below P)");
  if (std::find(c.labels.begin(), c.labels.end(), a.abstain_label) != c.labels.end())
    throw han::Error("--abstain-label: \"" + a.abstain_label + "\" is one of the model's labels; choose another name");
  return a.abstain_label;
}

// `han predict -m model` typed at a terminal waits for stdin: say what it waits for (not
// when stdin is a pipe or a file, nor with --quiet).
void say_when_reading_a_terminal(const PredictArgs& a) {
  if (std::find(a.paths.begin(), a.paths.end(), "-") == a.paths.end() || !::isatty(STDIN_FILENO)) return;
  if (a.input == "files") spdlog::info("reading one document from stdin (the terminal); end it with Ctrl-D");
  else if (a.input == "jsonl") spdlog::info("reading JSON records from stdin (the terminal), one per line; end with Ctrl-D");
  else spdlog::info("reading documents from stdin (the terminal), one per line; end with Ctrl-D");
}

void run_predict(PredictArgs& a) {
  setup_logging(a.log);
  check_args(a);
  const Classifier classifier = load_classifier(a.model, nullptr, nullptr, Residence::mapped);
  const std::string abstain_label = check_threshold(a, classifier);
  if (a.top_k_given && classifier.head.task == Task::regression)
    throw han::Error("--top-k: a regression model answers one number; " + a.model + " is a regression model");
  RowLayout layout;
  layout.format = a.format;
  layout.top_k = classifier.head.task == Task::multilabel && !a.top_k_given ? classifier.labels.size()
                                                                            : static_cast<std::size_t>(a.top_k);
  const std::vector<Source> sources = plan_sources(a);
  layout.path = a.paths.size() > 1 || sources.front().whole;
  layout.gold = a.input == "jsonl" || a.input == "fasttext" || a.input == "tsv";
  layout.error = a.on_error == "skip";
  layout.explain = a.explain;
  layout.threshold = a.threshold;
  layout.abstain_label = abstain_label;
  Runner runner(a, classifier, layout, documents_to_come(sources));
  say_when_reading_a_terminal(a);
  try {
    LabelOptions gold = label_options(classifier.config, false);
    gold.encoding = parse_enum<TextEncoding>(a.encoding, "--encoding");
    read_sources(runner, sources, layout.path, gold);
  } catch (const han::Error&) {
    runner.finish();  // answers what was read; a failed write (before or during that) is the error shown
    throw;
  }
  runner.finish();
  if (runner.bad() > 0 && runner.good() == 0)
    throw han::Error("none of the " + std::to_string(runner.bad()) + " records could be read (see the warnings above)");
}

}  // namespace

void add_predict_command(CLI::App& app) {
  auto args = std::make_shared<PredictArgs>();
  CLI::App* cmd = app.add_subcommand("predict", "Classify documents: files, or stdin one per line");
  add_model_option(cmd, args->model);
  cmd->add_option("paths", args->paths, "Documents to classify; none reads stdin, and '-' reads it at its place")->type_name("PATH");
  cmd->add_option("-f,--format", args->format, "Output: tsv (label, probability), json (one object per line), html (a page)")
      ->check(one_of({"tsv", "json", "html"}))
      ->default_val("tsv");
  cmd->add_option("--data-format", args->input, "lines: one document per line; files: each path one document; jsonl, fasttext, tsv: "
                  "records (their labels are gold answers); default: a file is one document, stdin one per line, "
                  "unless the first line is a JSON record or a __label__ line")
      ->check(one_of({"lines", "files", "jsonl", "fasttext", "tsv"}));
  cmd->add_option("--on-error", args->on_error, "A record that cannot be read: stop (after answering the ones before it) or skip (an error row in its place)")
      ->check(one_of({"stop", "skip"}))
      ->default_val("stop");
  add_deprecated_alias(*cmd, "-i,--input", args->input, "--data-format");
  cmd->add_option("-k,--top-k", args->top_k,
                  "Best K labels per document (multi-label models: at most K of the labels reaching their "
                  "thresholds, the most probable; default: all of them)")
      ->default_val(1)
      ->each([args](const std::string&) { args->top_k_given = true; });
  cmd->add_option("--threshold", args->threshold,
                  "Multi-label models: answer every label whose probability reaches P (default: the model's "
                  "thresholds); single-label models: answer the abstain label when the top probability is below P")
      ->check(in_range(0.0, 1.0))
      ->type_name("P");
  cmd->add_option("--abstain-label", args->abstain_label,
                  "With --threshold, what a single-label model answers when it abstains (default: __none__)")
      ->type_name("NAME");
  cmd->add_flag("-e,--explain", args->explain, "json: add sentence and word attention weights");
  cmd->add_option("-b,--batch-size", args->batch_size, "Documents per batch (and per output flush)")->default_val(64);
  cmd->add_option("-t,--threads", args->threads, "Threads that compute (0 = all cores); with more than one, reading the next documents overlaps computing")->default_val(0)->check(in_range(0, 1024));
  add_encoding_option(*cmd, args->encoding, "the documents'");
  add_log_options(*cmd, args->log);
  cmd->callback([args] { run_predict(*args); });
}

}  // namespace han::cli
