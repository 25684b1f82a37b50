// The han command line, run as a user runs it: every verb, the stdin contract, and
// the bad-input errors (exit 2, one line "han: error: ..." naming the file/line/key).
#include <catch2/catch.hpp>
#include <cmath>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/cli_fixture.h"
#include "han/core/config.h"
#include "han/infer/model_file.h"
#include "support/paths.h"
#include "support/run.h"
#include "support/signal_run.h"

using namespace han::test;
using nlohmann::json;

namespace {

// A failing command: exit 2, nothing on stdout, one stderr line starting "han: error:".
void check_user_error(const RunResult& r, const std::string& must_mention) {
  INFO("stderr: " << r.err);
  CHECK(r.exit_code == 2);
  CHECK_FALSE(r.signalled);
  CHECK(r.out.empty());
  const auto errs = lines_of(r.err);
  REQUIRE(errs.size() == 1);
  CHECK(errs[0].rfind("han: error: ", 0) == 0);
  CHECK(errs[0].find(must_mention) != std::string::npos);
}

// Where each field of a table line starts, in code points (what a terminal shows), with
// fields separated by two spaces or more (cells themselves hold single spaces only).
std::vector<std::size_t> field_starts(const std::string& line) {
  std::vector<std::size_t> starts;
  std::size_t column = 0, blanks = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(line[i]);
    if ((c & 0xC0) == 0x80) continue;  // a continuation byte: same character
    if (c != ' ' && (starts.empty() || blanks >= 2)) starts.push_back(column);
    blanks = c == ' ' ? blanks + 1 : 0;
    ++column;
  }
  return starts;
}

}  // namespace

// Not run by default (hidden): CTest runs it as cli_fixture_setup, before every [cli] case.
TEST_CASE("cli fixture: train the shared model", "[.cli_fixture]") {
  const CliFixture& f = retrain_cli_fixture();
  INFO(f.train.err);
  CHECK(f.train.exit_code == 0);
}

TEST_CASE("train writes the model, the effective config, per-epoch metrics and a JSON summary", "[cli][train]") {
  const CliFixture& f = cli_fixture();
  INFO(f.train.err);
  REQUIRE(f.train.exit_code == 0);
  const auto out = lines_of(f.train.out);
  REQUIRE(out.size() == 1);
  const json summary = json::parse(out[0]);
  CHECK(summary["model"] == f.model);
  CHECK(summary["best_epoch"] == 1);
  CHECK(summary["dev_accuracy"].get<double>() > 0.5);
  CHECK(summary["test"]["accuracy"].get<double>() > 0.5);
  CHECK(std::filesystem::exists(f.model));
  const json cfg = json::parse(slurp(f.run_dir / "config.json"));
  CHECK(cfg["model"]["word_hidden"] == 16);
  const auto metrics = lines_of(slurp(f.run_dir / "metrics.jsonl"));
  REQUIRE(metrics.size() == 1);
  const json m = json::parse(metrics[0]);
  for (const char* key : {"epoch", "train_loss", "dev_accuracy", "dev_macro_f1", "seconds", "docs_per_second",
                          "tokens_per_second", "padding_fraction"})
    CHECK(m.contains(key));
}

TEST_CASE("predict answers every stdin line, in order, empty lines included", "[cli][predict]") {
  const CliFixture& f = cli_fixture();
  // 400 different reviews of different lengths (predict batches them by length), every 7th
  // line empty, some with CRLF endings.
  const auto reviews = lines_of(slurp(source_path("data/test.jsonl")));
  std::vector<std::string> docs;
  for (std::size_t i = 0; i < 400; ++i) {
    std::string text = json::parse(reviews[i])["text"].get<std::string>().substr(0, 200 + 7 * i);
    for (char& c : text)
      if (c == '\n' || c == '\r') c = ' ';
    docs.push_back(i % 7 == 0 ? "" : text);
  }
  const auto answers = [&](const std::vector<std::string>& in) {
    std::string input;
    for (std::size_t i = 0; i < in.size(); ++i) input += in[i] + (i % 2 ? "\r\n" : "\n");
    const RunResult r = run(han_cmd("predict --format json --model " + f.model), input);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    return lines_of(r.out);
  };
  const auto out = answers(docs);
  REQUIRE(out.size() == docs.size());
  // Reversed input, reversed answers: any reordering inside predict would break this.
  const auto reversed = answers(std::vector<std::string>(docs.rbegin(), docs.rend()));
  REQUIRE(reversed.size() == docs.size());
  // An answer as (label, probability); batches of other documents move it by 1e-5 at most.
  const auto read = [](const std::string& line) {
    const json a = json::parse(line);
    return std::make_pair(a.at("label").get<std::string>(), a.at("probability").get<double>());
  };
  std::size_t distinct = 0;
  for (std::size_t i = 0; i < docs.size(); ++i) {
    INFO(i);
    const auto answer = read(out[i]), from_reversed = read(reversed[docs.size() - 1 - i]);
    CHECK((answer.first == "pos" || answer.first == "neg"));
    CHECK(from_reversed.first == answer.first);
    CHECK(std::abs(from_reversed.second - answer.second) <= 1e-5);
    CHECK(json::parse(out[i])["id"] == i + 1);  // the input line it answers
    if (docs[i].empty()) CHECK(answer == read(out[0]));  // every empty line gets the one answer of no text
    distinct += i > 0 && std::abs(answer.second - read(out[i - 1]).second) > 1e-3;
  }
  CHECK(distinct > 300);  // the answers tell the documents apart, so the order check has teeth
  // A last line without a newline is still a document.
  CHECK(lines_of(run(han_cmd("predict --model " + f.model), "good\nbad").out).size() == 2);
}

TEST_CASE("predict gives a document the same probabilities alone and inside a large batch", "[cli][predict]") {
  const CliFixture& f = cli_fixture();
  const std::string doc = "The plot was thin. But the actors were superb and I loved the music.";
  std::string batch;
  const auto test_lines = lines_of(slurp(source_path("data/test.jsonl")));
  for (int i = 0; i < 200; ++i) batch += json::parse(test_lines[i])["text"].get<std::string>().substr(0, 3000) + "\n";
  for (char& c : batch) if (c == '\r') c = ' ';
  // Newlines inside the texts were lines of their own above; keep it simple: put our doc in the middle.
  const auto before = lines_of(batch);
  std::string input;
  for (std::size_t i = 0; i < before.size(); ++i) input += (i == before.size() / 2 ? doc + "\n" : "") + before[i] + "\n";
  const RunResult alone = run(han_cmd("predict --format json --model " + f.model), doc + "\n");
  const RunResult many = run(han_cmd("predict --format json --batch-size 256 --model " + f.model), input);
  REQUIRE(alone.exit_code == 0);
  REQUIRE(many.exit_code == 0);
  const double p_alone = json::parse(lines_of(alone.out)[0])["probability"];
  const double p_batch = json::parse(lines_of(many.out)[before.size() / 2])["probability"];
  CHECK(std::abs(p_alone - p_batch) <= 1e-5);
}

TEST_CASE("predict on files: tsv with paths, json with top-k and explanations, self-contained html", "[cli][predict]") {
  const CliFixture& f = cli_fixture();
  TempDir tmp;
  write(tmp.path / "a.txt", "An absolute masterpiece. I loved every minute!");
  write(tmp.path / "b.txt", "Terrible. The worst film I have seen this year.\nAvoid it.");
  const std::string files = (tmp.path / "a.txt").string() + " " + (tmp.path / "b.txt").string();
  const RunResult tsv = run(han_cmd("predict --model " + f.model + " " + files));
  REQUIRE(tsv.exit_code == 0);
  const auto rows = lines_of(tsv.out);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].rfind((tmp.path / "a.txt").string() + "\t", 0) == 0);

  const RunResult js = run(han_cmd("predict --format json --top-k 2 --explain --model " + f.model + " " + files));
  REQUIRE(js.exit_code == 0);
  const json first = json::parse(lines_of(js.out)[1]);
  CHECK(first["top_k"].size() == 2);
  CHECK(first["label"] == first["top_k"][0]["label"]);
  const json& sentences = first["attention"]["sentences"];
  REQUIRE(sentences.size() == 3);
  double total = 0;
  for (const json& s : sentences) total += s["weight"].get<double>();
  CHECK(total == Approx(1.0).margin(1e-4));
  CHECK(sentences[2]["words"][0][0] == "avoid");

  const RunResult html = run(han_cmd("predict --format html --model " + f.model + " " + files));
  REQUIRE(html.exit_code == 0);
  CHECK(html.out.rfind("<!DOCTYPE html>", 0) == 0);
  for (const char* external : {"http://", "https://", "src=", "<link", "@import", "url("})
    CHECK(html.out.find(external) == std::string::npos);
  CHECK(html.out.find("masterpiece") != std::string::npos);

  const RunResult jsonl = run(han_cmd("predict --data-format jsonl --model " + f.model),
                              "{\"text\": \"great fun\", \"label\": \"pos\"}\n{\"text\": \"awful\"}\n");
  REQUIRE(jsonl.exit_code == 0);
  const auto jl = lines_of(jsonl.out);
  REQUIRE(jl.size() == 2);
  CHECK(jl[0].substr(jl[0].rfind('\t') + 1) == "pos");  // the gold label is echoed
}

TEST_CASE("eval prints accuracy, per-class scores and the confusion matrix", "[cli][eval]") {
  const CliFixture& f = cli_fixture();
  const RunResult text = run(han_cmd("eval --model " + f.model + " --data " + source_path("data/dev.jsonl")));
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("accuracy") != std::string::npos);
  CHECK(text.out.find("confusion") != std::string::npos);
  const RunResult js = run(han_cmd("eval --json --model " + f.model + " --data " + source_path("data/dev.jsonl")));
  REQUIRE(js.exit_code == 0);
  const json m = json::parse(js.out);
  for (const char* key : {"accuracy", "macro_f1", "per_class", "confusion"}) CHECK(m.contains(key));
  CHECK(m["per_class"]["pos"]["support"].get<int>() + m["per_class"]["neg"]["support"].get<int>() == 500);
}

TEST_CASE("eval counts a gold label the model does not know as an error and says how many, and -m takes a run folder",
          "[cli][eval]") {
  const CliFixture& f = cli_fixture();
  TempDir tmp;
  const std::vector<std::string> dev = lines_of(slurp(source_path("data/dev.jsonl")));
  std::string data;
  for (int i = 0; i < 20; ++i) data += dev[static_cast<std::size_t>(i)] + "\n";
  data += R"({"label": "neutral", "text": "It was a film."})" "\n" R"({"label": "neutral", "text": "Fine."})" "\n";
  data += R"({"label": "mixed", "text": "Good acting, bad plot."})" "\n";
  const std::string path = (tmp.path / "unknown.jsonl").string();
  write(path, data);
  const RunResult known = run(han_cmd("eval --json --model " + f.model + " --data " + source_path("data/dev.jsonl")));
  const RunResult r = run(han_cmd("eval --json --model " + f.run_dir.string() + " --data " + path));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err == "han: " + path + ": 3 of 23 documents have a label the model does not know (\"neutral\" "
                 "2, \"mixed\" 1); each counts as an error\n");
  const json m = json::parse(r.out);
  CHECK(m["unknown_labels"] == json{{"neutral", 2}, {"mixed", 1}});
  CHECK(m["per_class"]["neutral"]["support"] == 2);
  CHECK(m["per_class"]["neutral"]["recall"] == 0.0);
  // The 20 known documents score as they do alone; the 3 others are wrong.
  const RunResult first20 = [&] {
    const std::string p20 = (tmp.path / "known.jsonl").string();
    write(p20, data.substr(0, data.find("{\"label\": \"neutral\"")));
    return run(han_cmd("eval --json --model " + f.model + " --data " + p20));
  }();
  const double right = json::parse(first20.out)["accuracy"].get<double>() * 20;
  CHECK(m["accuracy"].get<double>() == Approx(right / 23));
  CHECK(m["calibration"]["temperature"].is_number());
  const RunResult text = run(han_cmd("eval --model " + f.model + " --data " + path));
  CHECK(text.out.find("3 of 23 documents have a label the model does not know; each counts as an error\n") !=
        std::string::npos);
  // A run folder stands for its model.han; a folder without one says why.
  CHECK(run(han_cmd("info --model " + f.run_dir.string())).out.find(f.model) != std::string::npos);
  std::filesystem::create_directories(tmp.path / "unfinished");
  write((tmp.path / "unfinished" / "checkpoint.han").string(), "x");
  const RunResult unfinished = run(han_cmd("predict --model " + (tmp.path / "unfinished").string()), "good\n");
  CHECK(unfinished.exit_code == 2);
  CHECK(unfinished.err == "han: error: " + (tmp.path / "unfinished").string() + ": a run folder without model.han: its "
                          "training has not finished (continue it with han train --resume " +
                          (tmp.path / "unfinished").string() + ")\n");
  CHECK(known.exit_code == 0);
}

TEST_CASE("eval: --data-format is the input format and --format the output, the old --format tsv still reads tsv with a warning", "[cli][eval]") {
  const CliFixture& f = cli_fixture();
  TempDir tmp;
  const std::string data = (tmp.path / "two.tsv").string();
  write(data, "pos\tA wonderful film.\nneg\tDull and boring.\n");
  const std::string eval = "eval --model " + f.model + " --data " + data;
  const RunResult js = run(han_cmd(eval + " --data-format tsv --format json"));
  INFO(js.err);
  REQUIRE(js.exit_code == 0);
  CHECK(json::parse(js.out)["confusion"]["labels"].size() == 2);
  CHECK(js.err.empty());
  const RunResult old = run(han_cmd(eval + " --format tsv"));
  REQUIRE(old.exit_code == 0);
  CHECK(old.out.find("documents 2") != std::string::npos);
  CHECK(old.err == "han: warning: eval --format tsv is deprecated for the data format; use --data-format tsv\n");
  const RunResult old_json = run(han_cmd(eval + " --format tsv --json"));
  REQUIRE(old_json.exit_code == 0);
  CHECK(json::parse(old_json.out).contains("accuracy"));
  CHECK(run(han_cmd(eval + " --format tsv --quiet")).err.empty());
  check_user_error(run(han_cmd(eval + " --format tsv --data-format tsv")), "pass only --data-format");
  check_user_error(run(han_cmd(eval + " --data-format tsv --format text --json")), "--json and --format text");
}

TEST_CASE("eval skips a tsv header row label<TAB>text and says so", "[cli][eval]") {
  const CliFixture& f = cli_fixture();
  TempDir tmp;
  const std::string data = (tmp.path / "with_header.tsv").string();
  write(data, "\xEF\xBB\xBF LABEL\tText \r\npos\tA wonderful film.\r\nneg\tDull and boring.\r\n");
  const RunResult r = run(han_cmd("eval --data-format tsv --format json --model " + f.model + " --data " + data));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(json::parse(r.out)["documents"] == 2);  // the header is no document of class "label"
  CHECK(r.err == "han: " + data + ":1: header row \"LABEL<TAB>Text\" skipped\n");
}

TEST_CASE("labels are trimmed the same way in jsonl, tsv and fasttext", "[cli][eval]") {
  const CliFixture& f = cli_fixture();
  TempDir tmp;
  write(tmp.path / "padded.jsonl",
        "{\"label\": \" pos \", \"text\": \"A wonderful film.\"}\n{\"label\": \"neg\\t\", \"text\": \"Dull.\"}\n");
  write(tmp.path / "padded.tsv", "pos \tA wonderful film.\n neg\tDull.\n");
  write(tmp.path / "padded.txt", "__label__pos\v A wonderful film.\n__label__neg Dull.\n");
  std::vector<json> confusions;
  for (const char* file : {"padded.jsonl", "padded.tsv", "padded.txt"}) {
    const std::string format = std::string(file).substr(7) == "txt" ? "fasttext" : std::string(file).substr(7);
    const RunResult r = run(han_cmd("eval --format json --data-format " + format + " --model " + f.model +
                                    " --data " + (tmp.path / file).string()));
    INFO(file << ": " << r.err);
    REQUIRE(r.exit_code == 0);
    confusions.push_back(json::parse(r.out)["confusion"]);
  }
  CHECK(confusions[0] == confusions[1]);
  CHECK(confusions[0] == confusions[2]);

  // In training, " spam " and "spam " are one class.
  write(tmp.path / "train.jsonl",
        "{\"label\": \" spam \", \"text\": \"buy now\"}\n{\"label\": \"spam\", \"text\": \"cheap pills\"}\n"
        "{\"label\": \"ham\", \"text\": \"see you at lunch\"}\n");
  const RunResult train = run(han_cmd("train --quiet --config " + source_path("configs/quickstart.json") + " --output " +
                                      (tmp.path / "run").string() + " --set data.train=" + (tmp.path / "train.jsonl").string() +
                                      " --set data.dev= --set data.test= --set trainer.epochs=1 --set tokenizer.min_count=1"
                                      " --set model.embedding_dim=4 --set model.word_hidden=2 --set model.sentence_hidden=2"
                                      " --set model.attention_dim=4"));
  INFO(train.err);
  REQUIRE(train.exit_code == 0);
  const RunResult info = run(han_cmd("info --json --model " + (tmp.path / "run" / "model.han").string()));
  CHECK(json::parse(info.out)["labels"] == json({"ham", "spam"}));
  write(tmp.path / "spam.tsv", "spam \tbuy cheap pills now\n");
  CHECK(run(han_cmd("eval --data-format tsv --model " + (tmp.path / "run" / "model.han").string() + " --data " +
                    (tmp.path / "spam.tsv").string())).exit_code == 0);
}

TEST_CASE("integer jsonl labels are read as their text and come back as \"3\"", "[cli][train]") {
  TempDir tmp;
  write(tmp.path / "train.jsonl",
        "{\"label\": 3, \"text\": \"buy now\"}\n{\"label\": \"3\", \"text\": \"cheap pills\"}\n"
        "{\"label\": 7, \"text\": \"see you at lunch\"}\n");
  const std::string model = (tmp.path / "run" / "model.han").string();
  const RunResult train = run(han_cmd("train --quiet --config " + source_path("configs/quickstart.json") + " --output " +
                                      (tmp.path / "run").string() + " --set data.train=" + (tmp.path / "train.jsonl").string() +
                                      " --set data.dev= --set data.test= --set trainer.epochs=1 --set tokenizer.min_count=1"
                                      " --set model.embedding_dim=4 --set model.word_hidden=2 --set model.sentence_hidden=2"
                                      " --set model.attention_dim=4"));
  INFO(train.err);
  REQUIRE(train.exit_code == 0);
  CHECK(json::parse(run(han_cmd("info --json --model " + model)).out)["labels"] == json({"3", "7"}));
  const RunResult predicted = run(han_cmd("predict --data-format jsonl --format json --top-k 2 --model " + model),
                                  "{\"label\": 3, \"text\": \"buy cheap pills\"}\n");
  REQUIRE(predicted.exit_code == 0);
  const json answer = json::parse(predicted.out);
  CHECK(answer["gold"] == "3");
  CHECK(answer["top_k"][0]["label"].is_string());
  const RunResult evaluated = run(han_cmd("eval --format json --model " + model + " --data " +
                                          (tmp.path / "train.jsonl").string()));
  REQUIRE(evaluated.exit_code == 0);
  CHECK(json::parse(evaluated.out)["per_class"]["3"]["support"] == 2);
}

TEST_CASE("train refuses a path that is not UTF-8 up front, naming the key, and writes nothing", "[cli][train]") {
  TempDir tmp;
  const std::filesystem::path odd = tmp.path / "odd\xff";  // a folder name that is not UTF-8
  std::filesystem::create_directories(odd);
  write(odd / "train.jsonl", "{\"label\": \"a\", \"text\": \"one\"}\n{\"label\": \"b\", \"text\": \"two\"}\n");
  write(odd / "c.json", "{\"data\": {\"train\": \"train.jsonl\"}, \"trainer\": {\"epochs\": 1}}");
  const std::string out = (tmp.path / "run").string();
  const std::string quick = "train --quiet --config " + source_path("configs/quickstart.json") + " --output " + out;

  check_user_error(run(han_cmd(quick + " --set data.train=" + (odd / "train.jsonl").string())),
                   "data.train: path");
  check_user_error(run(han_cmd(quick + " --set data.train=x.jsonl --set data.dev=" + (odd / "train.jsonl").string())),
                   "data.dev: path");
  // A relative path in a config resolves against the config's folder, which is not UTF-8.
  const RunResult in_folder = run(han_cmd("train --quiet --config " + (odd / "c.json").string() + " --output " + out));
  check_user_error(in_folder, (odd / "c.json").string() + ": data.train: path");
  // Run from inside that folder: the current folder joins the path when it is made absolute.
  const RunResult from_inside = run("cd " + odd.string() + " && " + han_cmd("train --quiet --config c.json --output " + out));
  check_user_error(from_inside, "data.train: path");
  CHECK(from_inside.err.find("is not valid UTF-8 (byte 0xFF at offset") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(tmp.path / "run" / "config.json"));
  check_user_error(run(han_cmd("train --quiet --config " + source_path("configs/quickstart.json") + " --output " +
                               (odd / "run").string())),
                   "--output: path");
  CHECK_FALSE(std::filesystem::exists(odd / "run"));
}

TEST_CASE("predict: --data-format is the new name of --input, which still works with a warning", "[cli][predict]") {
  const CliFixture& f = cli_fixture();
  const std::string record = "{\"text\": \"great fun\", \"label\": \"pos\"}\n";
  const RunResult now = run(han_cmd("predict --data-format jsonl --model " + f.model), record);
  INFO(now.err);
  REQUIRE(now.exit_code == 0);
  CHECK(now.err.empty());
  for (const char* old_name : {"--input", "-i"}) {
    const RunResult old = run(han_cmd("predict " + std::string(old_name) + " jsonl --model " + f.model), record);
    REQUIRE(old.exit_code == 0);
    CHECK(old.out == now.out);
    CHECK(old.err == "han: warning: predict --input jsonl is deprecated; use --data-format jsonl\n");
  }
  check_user_error(run(han_cmd("predict --input jsonl --data-format lines --model " + f.model), record),
                   "pass only --data-format");
  CHECK(run(han_cmd("predict --help")).out.find("--input") == std::string::npos);
}

TEST_CASE("info shows format version, labels, vocabulary and parameter count", "[cli][info]") {
  const CliFixture& f = cli_fixture();
  const RunResult r = run(han_cmd("info --json --model " + f.model));
  REQUIRE(r.exit_code == 0);
  const json info = json::parse(r.out);
  CHECK(info["format_version"] == han::kModelFormatVersion);
  CHECK(info["labels"] == json({"neg", "pos"}));
  // A single-label model is stored as before tasks existed, no model.task; its "head" holds
  // only a temperature fitted on dev, and is absent when the fit keeps 1
  // (test_cli_calibration.cpp).
  CHECK(info["task"] == "single");
  if (info.contains("head"))
    CHECK(info["head"] == json({{"task", "single"}, {"temperature", info["head"]["temperature"]}}));
  CHECK_FALSE(info["config"]["model"].contains("task"));
  CHECK(info["vocabulary_size"].get<int>() > 100);
  CHECK(info["parameters"].get<long>() > 1000);
  CHECK(run(han_cmd("info --model " + f.model)).out.find("parameters") != std::string::npos);
}

TEST_CASE("info lines its values up in one column", "[cli][info]") {
  const CliFixture& f = cli_fixture();
  const RunResult r = run(han_cmd("info --model " + f.model));
  REQUIRE(r.exit_code == 0);
  const auto lines = lines_of(r.out);
  std::vector<std::string> fields;
  for (const std::string& line : lines) {
    if (line == "config") break;
    fields.push_back(line);
  }
  REQUIRE(fields.size() >= 5);
  CHECK(fields[2].rfind("labels (2)", 0) == 0);
  for (const std::string& line : fields) {
    INFO(line);
    REQUIRE(field_starts(line).size() == 2);
    CHECK(field_starts(line) == field_starts(fields[0]));
  }
}

TEST_CASE("a model stored without tokenizer.version keeps the tokenizer rules it was trained with",
          "[cli][predict]") {
  const CliFixture& f = cli_fixture();
  TempDir tmp;
  // The model as han wrote it before the Unicode tokenizer: no tokenizer.version.
  han::ModelFileContents m = han::load_model_file(f.model);
  m.header["config"]["tokenizer"].erase("version");
  const std::string old_model = (tmp.path / "old.han").string();
  han::save_model_file(old_model, m.header, m.tensors);
  CHECK(json::parse(run(han_cmd("info --json --model " + old_model)).out)["config"]["tokenizer"]["version"] == 1);
  CHECK(json::parse(run(han_cmd("info --json --model " + f.model)).out)["config"]["tokenizer"]["version"] == han::kTokenizerVersion);
  // Fullwidth letters are the ASCII words under the Unicode rules, other (unknown) words under
  // the old ones.
  const std::string input = "\uFF27\uFF32\uFF25\uFF21\uFF34 \uFF2D\uFF2F\uFF36\uFF29\uFF25\ngreat movie\nqqqqq zzzzz\n";
  const auto now = lines_of(run(han_cmd("predict --model " + f.model), input).out);
  const auto before = lines_of(run(han_cmd("predict --model " + old_model), input).out);
  REQUIRE(now.size() == 3);
  REQUIRE(before.size() == 3);
  CHECK(now[0] == now[1]);
  CHECK(before[0] != before[1]);
  CHECK(before[0] != now[0]);
  CHECK(before[1] == now[1]);  // ASCII reads alike under both
}

TEST_CASE("a model trained with tokenizer.version 2 still ends a sentence at Mr. and a version 3 model does not",
          "[cli][predict]") {
  const CliFixture& f = cli_fixture();
  TempDir tmp;
  han::ModelFileContents m = han::load_model_file(f.model);
  m.header["config"]["tokenizer"]["version"] = 2;  // as han wrote it before version 3
  const std::string v2_model = (tmp.path / "v2.han").string();
  han::save_model_file(v2_model, m.header, m.tensors);
  const auto sentences = [](const std::string& model) {
    const RunResult r = run(han_cmd("predict --format json --explain --model " + model), "It was solved by Mr. Poirot.\n");
    REQUIRE(r.exit_code == 0);
    return json::parse(r.out).at("attention").at("sentences").size();
  };
  CHECK(sentences(v2_model) == 2);
  CHECK(sentences(f.model) == 1);
}

TEST_CASE("bad input: exit 2 and one line naming the file, line or key", "[cli][errors]") {
  const CliFixture& f = cli_fixture();
  TempDir tmp;
  const auto d = tmp.path;
  const std::string train = source_path("data/train.jsonl");
  auto config = [&](const std::string& name, const std::string& text) {
    write(d / name, text);
    return (d / name).string();
  };
  SECTION("missing config file") { check_user_error(run(han_cmd("train --config /nonexistent/c.json")), "/nonexistent/c.json"); }
  SECTION("a directory where a file is expected") {
    check_user_error(run(han_cmd("train --config " + d.string())), d.string());
    check_user_error(run(han_cmd("predict --model " + d.string())), d.string());
  }
  SECTION("malformed config JSON names the line") {
    check_user_error(run(han_cmd("train --config " + config("bad.json", "{\n\"model\": {\"mask\": none}}"))), "bad.json:2");
  }
  SECTION("unknown key") {
    check_user_error(run(han_cmd("train --config " + config("u.json", "{\"model\": {\"hiden\": 3}}"))), "model.hiden");
  }
  SECTION("wrong type") {
    check_user_error(run(han_cmd("train --config " + config("t.json", "{\"trainer\": {\"epochs\": \"ten\"}}"))), "trainer.epochs");
  }
  SECTION("out of range, also through --set") {
    check_user_error(run(han_cmd("train --config " + config("r.json", "{\"model\": {\"dropout\": 1.5}}"))), "model.dropout");
    check_user_error(run(han_cmd("train --config " + config("ok.json", "{}") + " --set batching.batch_size=-1")), "batching.batch_size");
    check_user_error(run(han_cmd("train --config " + config("ok2.json", "{}") + " --set model.nope=1")), "model.nope");
  }
  SECTION("missing data file") {
    check_user_error(run(han_cmd("train --config " + config("m.json", "{\"data\": {\"train\": \"missing.jsonl\"}}") + " --output " + (d / "run").string())), "missing.jsonl");
  }
  SECTION("malformed data line names file and line") {
    write(d / "broken.jsonl", "{\"label\": \"a\", \"text\": \"x\"}\n{\"label\": \"b\", \"text\": \n");
    check_user_error(run(han_cmd("train --config " + config("b.json", "{\"data\": {\"train\": \"broken.jsonl\"}}") + " --output " + (d / "run").string())), "broken.jsonl:2");
  }
  SECTION("empty training set") {
    write(d / "empty.jsonl", "");
    check_user_error(run(han_cmd("train --config " + config("e.json", "{\"data\": {\"train\": \"empty.jsonl\"}}") + " --output " + (d / "run").string())), "empty.jsonl");
  }
  SECTION("model file from another format version, truncated, or foreign") {
    std::string bytes = slurp(f.model);
    std::string future = bytes;
    future[8] = 9;  // the version field follows the 8-byte magic
    write(d / "future.han", future);
    check_user_error(run(han_cmd("info --model " + (d / "future.han").string())), "version");
    write(d / "short.han", bytes.substr(0, bytes.size() / 2));
    check_user_error(run(han_cmd("predict --model " + (d / "short.han").string())), "short.han");
    write(d / "foreign.han", "{\"not\": \"a model\"}");
    check_user_error(run(han_cmd("eval --model " + (d / "foreign.han").string() + " --data " + train)), "foreign.han");
  }
  SECTION("usage errors") {
    const RunResult r = run(han_cmd("predict"));
    CHECK(r.exit_code == 2);
    CHECK(r.err.rfind("han: error: ", 0) == 0);
    CHECK(run(han_cmd("frobnicate")).exit_code == 2);
  }
}

TEST_CASE("ablate trains every variant, writes ablation.json and report.html, and re-uses finished runs",
          "[cli][ablate]") {
  const CliFixture& f = cli_fixture();
  TempDir tmp;
  const std::string out = (tmp.path / "ablate").string();
  const std::string cmd = han_cmd("ablate --config " + source_path("configs/quickstart.json") + " --output " + out +
                                  " --seeds 2 --set data.train=" + f.data +
                                  " --set trainer.epochs=1 --set model.embedding_dim=16 --set model.word_hidden=8"
                                  " --set model.sentence_hidden=8 --set model.attention_dim=16");
  const RunResult r = run(cmd);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("renorm") != std::string::npos);
  const json a = json::parse(slurp(out + "/ablation.json"));
  REQUIRE(a["variants"].size() == 6);
  for (const json& v : a["variants"]) {
    INFO(v.dump());
    for (const char* key : {"mask", "batching", "seeds", "accuracy", "macro_f1", "vs_renorm", "pad_attention_mass",
                            "padding_fraction", "invariance_error", "epochs_to_best", "seconds_per_epoch", "dev_curve"})
      CHECK(v.contains(key));
    CHECK(v["accuracy"]["values"].size() == 2);
    CHECK(v["accuracy"]["sd"].get<double>() >= 0);
    CHECK(v["dev_curve"].size() == 2);
    const bool masked = v["mask"] != "none";
    if (v["mask"] == "renorm") {
      CHECK(v["vs_renorm"].is_null());
    } else {
      CHECK(v["vs_renorm"]["ci95"].size() == 2);
      CHECK(v["vs_renorm"]["ci95"][0].get<double>() <= v["vs_renorm"]["mean_diff"].get<double>());
    }
    if (masked) {
      CHECK(v["pad_attention_mass"]["word"].get<double>() == 0.0);
      CHECK(v["pad_attention_mass"]["sentence"].get<double>() == 0.0);
      CHECK(v["invariance_error"].get<double>() <= 1e-5);
    } else {
      CHECK(v["pad_attention_mass"]["word"].get<double>() > 0.0);
      CHECK(v["invariance_error"].get<double>() > 1e-5);
    }
    CHECK(v["padding_fraction"]["word"].get<double>() > 0.0);
  }
  const std::string html = slurp(out + "/report.html");
  CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(html.find("<svg") != std::string::npos);
  for (const char* external : {"https://", "src=", "<link", "@import", "url(", "<script"})
    CHECK(html.find(external) == std::string::npos);
  // Re-run on the same folder: nothing is trained again.
  const RunResult again = run(cmd);
  REQUIRE(again.exit_code == 0);
  CHECK(again.err.find("training ") == std::string::npos);
  CHECK(again.err.find("re-using") != std::string::npos);
  CHECK(json::parse(slurp(out + "/ablation.json"))["variants"] == a["variants"]);
}

TEST_CASE("ablate with one seed: sd and interval are null and n/a, the table lines up, broken runs are trained again",
          "[cli][ablate]") {
  const CliFixture& f = cli_fixture();
  TempDir tmp;
  const std::string out = (tmp.path / "ablate1").string();
  const std::string cmd = han_cmd("ablate --config " + source_path("configs/quickstart.json") + " --output " + out +
                                  " --seeds 1 --batching bucket --set data.train=" + f.data +
                                  " --set data.test= --set trainer.epochs=1 --set model.embedding_dim=8"
                                  " --set model.word_hidden=4 --set model.sentence_hidden=4 --set model.attention_dim=8");
  const RunResult r = run(cmd);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const json a = json::parse(slurp(out + "/ablation.json"));
  REQUIRE(a["variants"].size() == 3);
  for (const json& v : a["variants"]) {
    INFO(v["mask"]);
    CHECK(v["accuracy"]["sd"].is_null());
    CHECK(v["macro_f1"]["sd"].is_null());
    CHECK(v["accuracy"]["values"].size() == 1);
    if (v["mask"] != "renorm") {
      CHECK(v["vs_renorm"]["ci95"].is_null());
      CHECK(v["vs_renorm"]["macro_f1_ci95"].is_null());
      CHECK(v["vs_renorm"]["mean_diff"].is_number());
    }
  }
  // The table: a header and a line per variant, every column starting at the same place;
  // then a verdict line per variant against renorm, and the legend.
  const auto lines = lines_of(r.out);
  REQUIRE(lines.size() == 4 + 1 + 2 + 1 + 6 + 1);
  CHECK(lines[4].empty());
  CHECK(lines[5].rfind("verdict: with bucket batching, none ", 0) == 0);
  CHECK(lines[6].rfind("verdict: with bucket batching, additive ", 0) == 0);
  for (int i = 5; i < 7; ++i) {
    INFO(lines[i]);  // one seed: no interval, so no claim of better or worse
    CHECK((lines[i].find("from one seed, which cannot tell them apart") != std::string::npos ||
           lines[i].find("(1 of 1 tied)") != std::string::npos));
  }
  CHECK(lines[8].rfind("  Δ: the paired difference", 0) == 0);
  CHECK(lines[10].rfind("  padding w/s: ", 0) == 0);
  CHECK(lines[0].find("acc (dev)") != std::string::npos);
  CHECK(r.out.find("± 0.0000") == std::string::npos);
  CHECK(r.out.find("[0, 0]") == std::string::npos);
  for (int i = 0; i < 4; ++i) {
    INFO(lines[i]);
    CHECK(field_starts(lines[i]).size() == 11);
    CHECK(field_starts(lines[i]) == field_starts(lines[0]));
    if (i > 0) CHECK(lines[i].find("± n/a") != std::string::npos);
  }
  CHECK(lines[1].find("[n/a]") != std::string::npos);  // none: Δ without an interval
  CHECK(lines[2].find("—") != std::string::npos);      // renorm against itself
  const std::string html = slurp(out + "/report.html");
  CHECK(html.find("± n/a") != std::string::npos);
  CHECK(html.find("± 0.0000") == std::string::npos);

  // An interrupted or damaged ablation: a run file gone, one unreadable, one missing a key.
  // Those are trained again, to the same figures; the intact one is re-used.
  const std::string runs = out + "/runs/";
  std::filesystem::remove(runs + "none-bucket-seed1.json");
  write(runs + "additive-bucket-seed1.json", slurp(runs + "additive-bucket-seed1.json").substr(0, 100));
  json stored = json::parse(slurp(runs + "renorm-bucket-seed1.json"));
  stored["run"].erase("invariance_error");
  write(runs + "renorm-bucket-seed1.json", stored.dump());
  const RunResult again = run(cmd);
  INFO(again.err);
  REQUIRE(again.exit_code == 0);
  for (const char* name : {"none", "additive", "renorm"})
    CHECK(again.err.find(std::string("training ") + name + "-bucket-seed1") != std::string::npos);
  write(runs + "renorm-bucket-seed1.json", stored.dump());
  const RunResult third = run(cmd);
  REQUIRE(third.exit_code == 0);
  CHECK(third.err.find("training renorm-bucket-seed1") != std::string::npos);
  CHECK(third.err.find("training none") == std::string::npos);
  CHECK(third.err.find("re-using " + runs + "none-bucket-seed1.json") != std::string::npos);
  json resumed = json::parse(slurp(out + "/ablation.json"));
  json first = a;
  for (json* j : {&resumed, &first})
    for (json& v : (*j)["variants"]) v.erase("seconds_per_epoch");  // wall clock: differs between runs
  CHECK(resumed == first);
}

TEST_CASE("SIGTERM during training writes a checkpoint, and --resume finishes with the uninterrupted model",
          "[cli][resume]") {
  const CliFixture& f = cli_fixture();
  TempDir tmp;
  const std::string common = "train --config " + source_path("configs/quickstart.json") + " --set data.train=" +
                             f.data +
                             " --set trainer.epochs=3 --set model.embedding_dim=32 --set model.word_hidden=16"
                             " --set model.sentence_hidden=16 --set model.attention_dim=32 --quiet --output ";
  const std::string a = (tmp.path / "interrupted").string(), b = (tmp.path / "straight").string();
  // Stop the run as soon as its first epoch's metrics appear: it is then mid-run for sure.
  const RunResult stopped = run(signal_on_event(han_cmd(common + a), "[ -s " + a + "/metrics.jsonl ]", "TERM"));
  INFO(stopped.err);
  CHECK(stopped.exit_code == 143);
  CHECK(stopped.err.find("--resume") != std::string::npos);
  REQUIRE(std::filesystem::exists(a + "/checkpoint.han"));
  const RunResult resumed = run(han_cmd("train --quiet --resume " + a));
  INFO(resumed.err);
  REQUIRE(resumed.exit_code == 0);
  REQUIRE(run(han_cmd(common + b)).exit_code == 0);
  CHECK(slurp(a + "/model.han") == slurp(b + "/model.han"));
  check_user_error(run(han_cmd("train --resume " + a)), "the run finished");
}

TEST_CASE("a run folder written before tokenizer.version resumes with the old tokenizer rules", "[cli][resume]") {
  const CliFixture& f = cli_fixture();
  TempDir tmp;
  const std::string common = "train --config " + source_path("configs/quickstart.json") + " --set data.train=" +
                             f.data +
                             " --set trainer.epochs=3 --set model.embedding_dim=32 --set model.word_hidden=16"
                             " --set model.sentence_hidden=16 --set model.attention_dim=32 --set tokenizer.version=1"
                             " --quiet --output ";
  const std::string a = (tmp.path / "old_interrupted").string(), b = (tmp.path / "old_straight").string();
  const RunResult stopped = run(signal_on_event(han_cmd(common + a), "[ -s " + a + "/metrics.jsonl ]", "TERM"));
  INFO(stopped.err);
  REQUIRE(std::filesystem::exists(a + "/checkpoint.han"));
  // Make the folder what han wrote before the key existed: neither file names the version.
  json config = json::parse(slurp(a + "/config.json"));
  config["tokenizer"].erase("version");
  write(a + "/config.json", config.dump(2));
  han::ModelFileContents checkpoint = han::load_model_file(a + "/checkpoint.han");
  checkpoint.header["config"]["tokenizer"].erase("version");
  han::save_model_file(a + "/checkpoint.han", checkpoint.header, checkpoint.tensors);
  const RunResult resumed = run(han_cmd("train --quiet --resume " + a));
  INFO(resumed.err);
  REQUIRE(resumed.exit_code == 0);
  REQUIRE(run(han_cmd(common + b)).exit_code == 0);
  CHECK(slurp(a + "/model.han") == slurp(b + "/model.han"));
}

TEST_CASE("kill -9 while models are being written never leaves a broken model file", "[cli][atomic]") {
  const CliFixture& f = cli_fixture();
  TempDir tmp;
  // A wide embedding table over every word (min_count 1) makes each model.han tens of MB,
  // so a write lasts long enough to be caught in the act.
  const std::string cmd = "train --config " + source_path("configs/quickstart.json") + " --set data.train=" +
                          f.data +
                          " --set trainer.epochs=50 --set trainer.patience=0 --set data.test= --set tokenizer.min_count=1"
                          " --set model.embedding_dim=1024 --set model.word_hidden=4 --set model.sentence_hidden=4"
                          " --set model.attention_dim=8 --set model.linear_member=false --quiet --output ";
  // Each try: once the first model.han is there, watch for the temporary file of a later
  // write (model.han.tmp.PID, there only while a write is under way) and kill -9 the run the
  // moment it is seen. The run is held stopped between polls (signal_on_event), so a
  // temporary file seen is a write the kill interrupts; a try that sees none is not counted.
  int caught = 0;
  for (int attempt = 0; attempt < 6 && caught == 0; ++attempt) {
    const std::string dir = (tmp.path / ("killed" + std::to_string(attempt))).string();
    run(signal_on_event(han_cmd(cmd + dir), "[ -e " + dir + "/model.han ] && [ -e " + dir + "/model.han.tmp.$pid ]", "KILL"));
    INFO("try " << attempt);
    REQUIRE(std::filesystem::exists(dir + "/model.han"));
    const RunResult info = run(han_cmd("info --model " + dir + "/model.han"));
    INFO(info.err);
    CHECK(info.exit_code == 0);
    for (const auto& entry : std::filesystem::directory_iterator(dir))
      caught += entry.path().filename().string().rfind("model.han.tmp.", 0) == 0;
  }
  CHECK(caught == 1);  // a kill landed inside a write, and model.han stayed whole
}

TEST_CASE("error messages quote bad input briefly and list choices from the enum tables", "[cli][errors]") {
  const CliFixture& f = cli_fixture();
  TempDir tmp;
  const auto d = tmp.path;
  SECTION("a huge label is quoted in part, on one short line") {
    write(d / "long_label.tsv", std::string(5000, 'x') + "\tsome text\n");
    const RunResult r = run(han_cmd("eval --data-format tsv --model " + f.model + " --data " + (d / "long_label.tsv").string()));
    check_user_error(r, "long_label.tsv:1: label \"" + std::string(200, 'x') + "\"... is longer than 1024 bytes");
    CHECK(r.err.size() < 400);
  }
  SECTION("malformed config JSON: the reason without the parser's preamble or raw bytes") {
    write(d / "cut.json", "{\"model\": {\"mask\": \"ren\xff");
    const RunResult r = run(han_cmd("train --config " + (d / "cut.json").string()));
    check_user_error(r, "cut.json:1:24: malformed JSON: invalid string: ill-formed UTF-8 byte");
    CHECK(r.err.find("last read") == std::string::npos);
    CHECK(r.err.find("syntax error while parsing") == std::string::npos);
  }
  SECTION("enum values: the config and the command line offer the same names, in the same words") {
    write(d / "mask.json", "{\"model\": {\"mask\": \"zero\"}}");
    check_user_error(run(han_cmd("train --config " + (d / "mask.json").string())),
                     "model.mask: must be one of \"none\", \"renorm\", \"additive\", got \"zero\"");
    check_user_error(run(han_cmd("ablate --config " + (d / "mask.json").string() + " --masks none,zero")),
                     "--masks: must be one of \"none\", \"renorm\", \"additive\", got \"zero\"");
    check_user_error(run(han_cmd("ablate --config " + (d / "mask.json").string() + " --batching sorted")),
                     "--batching: must be one of \"bucket\", \"random\", got \"sorted\"");
  }
}
