#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "han/text/dataset.h"
#include "han/text/encoding.h"
#include "han/core/error.h"
#include "support/paths.h"
#include "support/read_error.h"

namespace fs = std::filesystem;
using han::DataFormat;
using han::Example;
using han::test::read_error;
using han::test::TempDir;

namespace {

std::vector<std::string> labels_of(const std::vector<Example>& xs) {
  std::vector<std::string> out;
  for (const auto& x : xs) out.push_back(x.label);
  return out;
}

std::vector<std::string> texts_of(const std::vector<Example>& xs) {
  std::vector<std::string> out;
  for (const auto& x : xs) out.push_back(x.text);
  return out;
}

using Strings = std::vector<std::string>;

Example example(const std::string& label, bool has_label, const std::string& text, const std::string& source) {
  Example e;
  e.label = label;
  e.has_label = has_label;
  e.text = text;
  e.source = source;
  return e;
}

}  // namespace

TEST_CASE("dataset: jsonl reader", "[dataset]") {
  TempDir dir;
  const std::string f = dir.write(
      "train.jsonl",
      "\xEF\xBB\xBF{\"label\": \"pos\", \"text\": \"Good film.\"}\r\n"
      "\r\n"
      "   \n"
      "{\"text\": \"Bad \\u00e9t\\u00e9\", \"label\": \"neg\", \"id\": 7, \"meta\": {\"x\": [1]}}\n"
      "{\"label\":\"pos\",\"text\":\"\"}");
  const auto xs = han::read_examples(f, DataFormat::jsonl, true);
  REQUIRE(xs.size() == 3);
  CHECK(labels_of(xs) == Strings{"pos", "neg", "pos"});
  CHECK(texts_of(xs) == Strings{"Good film.", "Bad \u00E9t\u00E9", ""});
  CHECK(xs[0].has_label);
  CHECK(xs[0].source == f + ":1");
  CHECK(xs[1].source == f + ":4");
  CHECK(xs[2].source == f + ":5");
}

TEST_CASE("dataset: jsonl errors name file and line", "[dataset]") {
  TempDir dir;
  const std::string ok = "{\"label\": \"a\", \"text\": \"t\"}\n";

  const std::string malformed = dir.write("bad.jsonl", ok + ok + "{\"label\": \"a\", \"text\": \n");
  std::string msg = read_error(malformed, DataFormat::jsonl);
  CHECK_THAT(msg, Catch::StartsWith(malformed + ":3: malformed JSON"));
  CHECK(msg.find('\n') == std::string::npos);

  const std::string missing = dir.write("missing.jsonl", ok + "\n{\"text\": \"t\"}\n");
  CHECK(read_error(missing, DataFormat::jsonl) == missing + ":3: missing \"label\"");

  const std::string number = dir.write("number.jsonl", ok + "{\"label\": 3.5, \"text\": \"t\"}\n");
  msg = read_error(number, DataFormat::jsonl);
  CHECK(msg == number + ":2: \"label\" must be a string or an integer, got float");

  const std::string integer = dir.write("integer.jsonl", "{\"label\": 3, \"text\": \"t\"}\n{\"label\": -12, \"text\": \"t\"}\n");
  const auto integers = han::read_examples(integer, DataFormat::jsonl, true);
  REQUIRE(integers.size() == 2);
  CHECK(integers[0].label == "3");
  CHECK(integers[1].label == "-12");

  const std::string empty = dir.write("empty.jsonl", "{\"label\": \"\", \"text\": \"t\"}\n");
  CHECK_THAT(read_error(empty, DataFormat::jsonl),
             Catch::StartsWith(empty + ":1:") && Catch::Contains("label"));

  const std::string no_text = dir.write("notext.jsonl", "{\"label\": \"a\"}\n");
  CHECK(read_error(no_text, DataFormat::jsonl) == no_text + ":1: missing \"text\"");

  const std::string text_num = dir.write("textnum.jsonl", "{\"label\": \"a\", \"text\": 5}\n");
  CHECK_THAT(read_error(text_num, DataFormat::jsonl),
             Catch::StartsWith(text_num + ":1:") && Catch::Contains("\"text\""));

  const std::string array = dir.write("array.jsonl", "[1, 2]\n");
  CHECK_THAT(read_error(array, DataFormat::jsonl), Catch::StartsWith(array + ":1:"));

  // Without required labels, a missing label is fine; a wrongly typed one is still an error.
  const auto xs = han::read_examples(missing, DataFormat::jsonl, false);
  REQUIRE(xs.size() == 2);
  CHECK_FALSE(xs[1].has_label);
  CHECK(xs[1].label.empty());
  CHECK_THROWS_AS(han::read_examples(number, DataFormat::jsonl, false), han::Error);
}

TEST_CASE("dataset: parse_jsonl_record", "[dataset]") {
  const Example e = han::parse_jsonl_record("{\"text\": \"hi\", \"label\": \"x\"}", "stdin:4", true);
  CHECK(e.has_label);
  CHECK(e.label == "x");
  CHECK(e.text == "hi");
  CHECK(e.source == "stdin:4");
  const Example u = han::parse_jsonl_record("{\"text\": \"hi\"}", "stdin:5", false);
  CHECK_FALSE(u.has_label);
  CHECK_THROWS_WITH(han::parse_jsonl_record("{oops", "stdin:6", false),
                    Catch::StartsWith("stdin:6: malformed JSON: "));
}

TEST_CASE("dataset: parse_jsonl_record keeps the top-level id as text with its type", "[dataset]") {
  const auto id_of = [](const std::string& line) {
    const Example e = han::parse_jsonl_record(line, "x:1", false);
    return e.id_type + " " + e.id;
  };
  CHECK(id_of(R"({"text": "hi"})") == " ");
  CHECK(id_of(R"({"id": "a7", "text": "hi"})") == "string a7");
  CHECK(id_of(R"({"text": "hi", "id": 42})") == "integer 42");
  CHECK(id_of(R"({"text": "hi", "id": -3})") == "integer -3");
  CHECK(id_of(R"({"text": "hi", "id": 1.50e3})") == "float 1.50e3");
  CHECK(id_of(R"({"text": "hi", "id": {"doc": 1}})") == "object ");
  CHECK(id_of(R"({"text": "hi", "meta": {"id": 5}})") == " ");  // only the top level counts
}

TEST_CASE("dataset: fasttext reader", "[dataset]") {
  TempDir dir;
  const std::string f = dir.write("train.txt",
                                  "\xEF\xBB\xBF__label__pos Great movie!\r\n"
                                  "\n"
                                  "__label__neg __label__neg Dull\tand long\n"
                                  "  __label__pos   spaced   \n");
  const auto xs = han::read_examples(f, DataFormat::fasttext, true);
  REQUIRE(xs.size() == 3);
  CHECK(labels_of(xs) == Strings{"pos", "neg", "pos"});
  CHECK(texts_of(xs) == Strings{"Great movie!", "Dull\tand long", "spaced   "});
  CHECK(xs[1].source == f + ":3");

  const std::string nolabel = dir.write("nolabel.txt", "__label__a x\nno label here\n");
  CHECK_THAT(read_error(nolabel, DataFormat::fasttext),
             Catch::StartsWith(nolabel + ":2: missing label"));
  const auto ys = han::read_examples(nolabel, DataFormat::fasttext, false);
  REQUIRE(ys.size() == 2);
  CHECK_FALSE(ys[1].has_label);
  CHECK(ys[1].text == "no label here");

  const std::string empty = dir.write("empty.txt", "__label__ text\n");
  CHECK_THAT(read_error(empty, DataFormat::fasttext), Catch::StartsWith(empty + ":1:"));
}

TEST_CASE("dataset: several labels on a line are refused for one-label data, never reduced to one", "[dataset]") {
  TempDir dir;
  const std::string ft = dir.write("multi.txt", "__label__a fine\n__label__a __label__b both\n");
  const std::string message = read_error(ft, DataFormat::fasttext);
  CHECK_THAT(message, Catch::StartsWith(ft + ":2: 2 labels on one line"));
  CHECK_THAT(message, Catch::Contains("__label__b") && Catch::Contains("model.task=multilabel"));
  // The same when labels are optional (predict's gold): a second label is never dropped.
  CHECK_THAT(read_error(ft, DataFormat::fasttext, false), Catch::StartsWith(ft + ":2:"));

  const std::string jl = dir.write("multi.jsonl", "{\"label\": \"a\", \"text\": \"x\"}\n"
                                                  "{\"labels\": [\"a\", \"b\"], \"text\": \"y\"}\n");
  CHECK_THAT(read_error(jl, DataFormat::jsonl),
             Catch::StartsWith(jl + ":2: \"labels\"") && Catch::Contains("model.task=multilabel"));
}

TEST_CASE("dataset: tsv reader", "[dataset]") {
  TempDir dir;
  const std::string f =
      dir.write("train.tsv", "\xEF\xBB\xBFpos\tA fine\ttabbed text\r\n\r\nneg\tBad.\n");
  const auto xs = han::read_examples(f, DataFormat::tsv, true);
  REQUIRE(xs.size() == 2);
  CHECK(labels_of(xs) == Strings{"pos", "neg"});
  CHECK(texts_of(xs) == Strings{"A fine\ttabbed text", "Bad."});
  CHECK(xs[1].source == f + ":3");

  const std::string notab = dir.write("notab.tsv", "pos\tok\njust text\n");
  CHECK_THAT(read_error(notab, DataFormat::tsv), Catch::StartsWith(notab + ":2: missing label"));
  const auto ys = han::read_examples(notab, DataFormat::tsv, false);
  REQUIRE(ys.size() == 2);
  CHECK_FALSE(ys[1].has_label);
  CHECK(ys[1].text == "just text");

  const std::string empty = dir.write("empty.tsv", "pos\tok\n\tno label\n");
  CHECK_THAT(read_error(empty, DataFormat::tsv),
             Catch::StartsWith(empty + ":2:") && Catch::Contains("label"));
}

TEST_CASE("dataset: missing file, folder given as file", "[dataset]") {
  TempDir dir;
  const std::string missing = dir.file("nope.jsonl");
  CHECK_THAT(read_error(missing, DataFormat::jsonl), Catch::Contains(missing));
  CHECK_THAT(read_error(missing, DataFormat::tsv), Catch::Contains(missing));
  CHECK_THAT(read_error(dir.path.string(), DataFormat::fasttext), Catch::Contains(dir.path.string()));
  CHECK_THAT(read_error(missing, DataFormat::folder), Catch::Contains(missing));
  const std::string file = dir.write("file.txt", "x");
  CHECK_THAT(read_error(file, DataFormat::folder), Catch::Contains(file));
}

TEST_CASE("dataset: folder reader", "[dataset]") {
  TempDir dir;
  const std::string root = dir.file("corpus");
  dir.write("corpus/sports/b.txt", "Goal!");
  dir.write("corpus/sports/a.txt", "\xEF\xBB\xBFMatch report.");
  dir.write("corpus/arts/z.txt", "Painting.");
  dir.write("corpus/arts/.hidden", "ignored");
  dir.write("corpus/README", "not a class");
  fs::create_directories(dir.file("corpus/empty"));
  const auto xs = han::read_examples(root, DataFormat::folder, true);
  REQUIRE(xs.size() == 3);
  CHECK(labels_of(xs) == Strings{"arts", "sports", "sports"});
  CHECK(texts_of(xs) == Strings{"Painting.", "Match report.", "Goal!"});
  CHECK(xs[1].source == (fs::path(root) / "sports" / "a.txt").string());
  CHECK(xs[0].has_label);
  CHECK(han::collect_labels(xs) == Strings{"arts", "sports"});
}

TEST_CASE("dataset: collect_labels, encode and unknown labels", "[dataset]") {
  std::vector<Example> xs(4);
  xs[0] = example("pos", true, "Good. Very good!", "f:1");
  xs[1] = example("neg", true, "Bad film\n\n", "f:2");
  xs[2] = example("", false, "", "f:3");
  xs[3] = example("pos", true, "unseen words", "f:4");
  const Strings labels = han::collect_labels(xs);
  CHECK(labels == Strings{"neg", "pos"});

  const han::Vocab vocab = han::Vocab::from_words({"<pad>", "<unk>", "good", ".", "bad", "!"});
  const han::Tokenizer tokenizer;
  const auto docs = han::encode_all(xs, tokenizer, {}, vocab, labels);
  REQUIRE(docs.size() == 4);
  CHECK(docs[0].label == 1);
  CHECK(docs[0].sentences.ids() == std::vector<std::vector<std::int32_t>>{{2, 3}, {1, 2, 5}});
  CHECK(docs[0].tokens() == 5);
  CHECK(docs[1].label == 0);
  CHECK(docs[1].sentences.ids() == std::vector<std::vector<std::int32_t>>{{4, 1}});
  CHECK(docs[2].label == -1);
  CHECK(docs[2].sentences.empty());
  CHECK(docs[2].tokens() == 0);
  CHECK(docs[3].sentences.ids() == std::vector<std::vector<std::int32_t>>{{1, 1}});

  const Example other = example("maybe", true, "good", "dev.jsonl:9");
  CHECK_THROWS_WITH(han::encode(other, tokenizer, vocab, labels),
                    "dev.jsonl:9: label \"maybe\" is not one of the model's 2 labels (\"neg\", \"pos\")");
  CHECK_THROWS_AS(han::encode_all({other}, tokenizer, {}, vocab, labels), han::Error);
  const han::Document d = han::encode(other, tokenizer, vocab, labels, true);
  CHECK(d.label == -1);
  CHECK(d.sentences == std::vector<std::vector<std::int32_t>>{{2}});
  CHECK(han::encode(xs[0], tokenizer, vocab, labels).label == 1);

  // Caps from the tokenizer options apply.
  han::TokenizerOptions capped;
  capped.max_sentences = 1;
  capped.max_words = 1;
  const auto c = han::encode(xs[0], han::Tokenizer(capped), vocab, labels);
  CHECK(c.sentences == std::vector<std::vector<std::int32_t>>{{2}});
}

namespace {

han::LabelOptions task_options(han::Task task, bool require = true) {
  han::LabelOptions o;
  o.task = task;
  o.require = require;
  return o;
}

}  // namespace

TEST_CASE("dataset: label sets for model.task multilabel in jsonl, fasttext and tsv", "[dataset]") {
  TempDir dir;
  const auto multi = task_options(han::Task::multilabel);
  const std::string jl = dir.write("m.jsonl", "{\"labels\": [\"b\", \" a \", \"b\", 3], \"text\": \"x\"}\n"
                                              "{\"label\": \"c\", \"text\": \"y\", \"weight\": 2.5}\n");
  const auto xs = han::read_examples(jl, DataFormat::jsonl, multi);
  REQUIRE(xs.size() == 2);
  CHECK(xs[0].labels == Strings{"b", "a", "3"});  // trimmed, each once, integers as text
  CHECK(xs[0].label == "b,a,3");
  CHECK(xs[1].labels == Strings{"c"});
  CHECK(xs[1].weight == 2.5);
  CHECK(han::collect_labels(xs) == Strings{"3", "a", "b", "c"});

  const std::string ft = dir.write("m.txt", "__label__x __label__y both\n__label__y one\n");
  const auto ys = han::read_examples(ft, DataFormat::fasttext, multi);
  CHECK(ys[0].labels == Strings{"x", "y"});
  CHECK(ys[0].text == "both");
  CHECK(ys[1].labels == Strings{"y"});

  han::LabelOptions pipe = multi;
  pipe.separator = "|";
  const std::string tsv = dir.write("m.tsv", "label\ttext\nx| y\tboth\ny\tone\n");
  const auto zs = han::read_examples(tsv, DataFormat::tsv, pipe);
  REQUIRE(zs.size() == 2);  // the header row is skipped
  CHECK(zs[0].labels == Strings{"x", "y"});
  CHECK(han::read_examples(tsv, DataFormat::tsv, multi)[0].labels == Strings{"x| y"});  // "," by default

  const std::vector<std::string> labels = {"a", "b", "c"};
  han::Vocab vocab;
  const han::Tokenizer tokenizer;
  han::Example e = xs[0];
  e.labels = {"c", "a"};
  CHECK(han::encode(e, tokenizer, vocab, labels).label_set == std::vector<std::int32_t>{2, 0});
  e.labels = {"a", "zzz"};
  CHECK_THROWS_WITH(han::encode(e, tokenizer, vocab, labels), Catch::Contains("label \"zzz\" is not one of"));
}

TEST_CASE("dataset: bad label sets name the file and line", "[dataset]") {
  TempDir dir;
  const auto multi = task_options(han::Task::multilabel);
  const std::string empty = dir.write("e.jsonl", "{\"labels\": [\"a\"], \"text\": \"x\"}\n{\"labels\": [], \"text\": \"y\"}\n");
  CHECK_THAT(read_error(empty, DataFormat::jsonl, multi), Catch::StartsWith(empty + ":2: empty label list"));
  const std::string both = dir.write("b.jsonl", "{\"labels\": [\"a\"], \"label\": \"b\", \"text\": \"x\"}\n");
  CHECK_THAT(read_error(both, DataFormat::jsonl, multi), Catch::StartsWith(both + ":1: both \"label\" and \"labels\""));
  const std::string item = dir.write("i.jsonl", "{\"labels\": [\"a\", 1.5], \"text\": \"x\"}\n");
  CHECK_THAT(read_error(item, DataFormat::jsonl, multi), Catch::StartsWith(item + ":1: \"labels\" item 2 must be"));
  const std::string blank = dir.write("k.tsv", "a,,b\ttext\n");
  CHECK_THAT(read_error(blank, DataFormat::tsv, multi), Catch::StartsWith(blank + ":1: empty label in the label list"));
  const std::string weight = dir.write("w.jsonl", "{\"label\": \"a\", \"text\": \"x\", \"weight\": -1}\n");
  CHECK_THAT(read_error(weight, DataFormat::jsonl, task_options(han::Task::single)),
             Catch::StartsWith(weight + ":1: \"weight\" must be a positive number"));
  CHECK_THAT(read_error(dir.path.string(), DataFormat::folder, multi), Catch::StartsWith("data.format: folder"));
}

TEST_CASE("dataset: regression targets from a jsonl key, fasttext and tsv labels", "[dataset]") {
  TempDir dir;
  han::LabelOptions reg = task_options(han::Task::regression);
  reg.target_key = "rating";
  const std::string jl = dir.write("r.jsonl", "{\"rating\": 7, \"label\": \"pos\", \"text\": \"x\"}\n"
                                              "{\"rating\": \"2.5\", \"text\": \"y\"}\n");
  const auto xs = han::read_examples(jl, DataFormat::jsonl, reg);
  REQUIRE(xs.size() == 2);
  CHECK(xs[0].target == 7);
  CHECK(xs[0].has_target);
  CHECK(xs[1].target == 2.5);
  const std::string ft = dir.write("r.txt", "__label__-1.5 low\n");
  CHECK(han::read_examples(ft, DataFormat::fasttext, reg)[0].target == -1.5);
  const std::string tsv = dir.write("r.tsv", "Label\tText\n 4 \tfour\n");
  const auto ts = han::read_examples(tsv, DataFormat::tsv, reg);
  REQUIRE(ts.size() == 1);
  CHECK(ts[0].target == 4);

  const std::string word = dir.write("bad.jsonl", "{\"rating\": 3, \"text\": \"x\"}\n{\"rating\": \"good\", \"text\": \"y\"}\n");
  CHECK_THAT(read_error(word, DataFormat::jsonl, reg),
             Catch::StartsWith(word + ":2: \"rating\" must be a number") && Catch::Contains("\"good\""));
  const std::string missing = dir.write("m.jsonl", "{\"target\": 3, \"text\": \"x\"}\n");
  CHECK_THAT(read_error(missing, DataFormat::jsonl, reg), Catch::StartsWith(missing + ":1: missing \"rating\""));
  const std::string boolean = dir.write("t.jsonl", "{\"rating\": true, \"text\": \"x\"}\n");
  CHECK_THAT(read_error(boolean, DataFormat::jsonl, reg), Catch::Contains("got boolean"));
  const std::string two = dir.write("two.txt", "__label__1 __label__2 x\n");
  CHECK_THAT(read_error(two, DataFormat::fasttext, reg), Catch::StartsWith(two + ":1: 2 labels on one line"));
  const std::string nan = dir.write("nan.tsv", "nan\tx\n");
  CHECK_THAT(read_error(nan, DataFormat::tsv, reg), Catch::StartsWith(nan + ":1: the label must be a number"));
}

TEST_CASE("dataset: lines that are not UTF-8 are read as Windows-1252 in every format", "[dataset][encoding]") {
  TempDir dir;
  // "café crème brûlée “yes”" in Windows-1252 bytes; the label "été" too.
  const std::string latin = "caf\xE9 cr\xE8me br\xFBl\xE9" "e \x93yes\x94";
  const std::string utf8 = "caf\xC3\xA9 cr\xC3\xA8me br\xC3\xBBl\xC3\xA9" "e \xE2\x80\x9Cyes\xE2\x80\x9D";
  const std::string ete_latin = "\xE9t\xE9", ete = "\xC3\xA9t\xC3\xA9";
  SECTION("tsv") {
    const auto xs = han::read_examples(dir.write("a.tsv", "pos\tfine\n" + ete_latin + "\t" + latin + "\n"), DataFormat::tsv, true);
    CHECK(texts_of(xs) == Strings{"fine", utf8});
    CHECK(labels_of(xs) == Strings{"pos", ete});
  }
  SECTION("fasttext") {
    const auto xs = han::read_examples(dir.write("a.txt", "__label__" + ete_latin + " " + latin + "\n"), DataFormat::fasttext, true);
    CHECK(texts_of(xs) == Strings{utf8});
    CHECK(labels_of(xs) == Strings{ete});
  }
  SECTION("jsonl: a string JSON itself would refuse") {
    const auto xs = han::read_examples(dir.write("a.jsonl", "{\"label\": \"pos\", \"text\": \"" + latin + "\"}\n"), DataFormat::jsonl, true);
    CHECK(texts_of(xs) == Strings{utf8});
  }
  SECTION("folder: each file") {
    dir.write("f/pos/1.txt", latin);
    dir.write("f/neg/1.txt", "plain");
    const auto xs = han::read_examples(dir.file("f"), DataFormat::folder, true);
    CHECK(texts_of(xs) == Strings{"plain", utf8});
  }
  SECTION("a BOM, then Windows-1252") {
    const auto xs = han::read_examples(dir.write("b.tsv", "\xEF\xBB\xBFpos\t" + latin + "\n"), DataFormat::tsv, true);
    CHECK(texts_of(xs) == Strings{utf8});
  }
  SECTION("the encoding named") {
    han::LabelOptions options;
    options.encoding = han::TextEncoding::utf8;
    auto xs = han::read_examples(dir.write("c.tsv", "pos\tcaf\xE9\n"), DataFormat::tsv, options);
    CHECK(texts_of(xs) == Strings{"caf\xEF\xBF\xBD"});
    options.encoding = han::TextEncoding::windows1252;
    xs = han::read_examples(dir.write("d.tsv", "pos\tcaf\xC3\xA9\n"), DataFormat::tsv, options);
    CHECK(texts_of(xs) == Strings{"caf\xC3\x83\xC2\xA9"});
  }
}
