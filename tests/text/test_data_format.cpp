// data.format auto: a file's format told from its first line (JSON Lines, fastText, tsv, a
// folder), a clear error for plain text, and a hint when a named format does not fit.
#include <catch2/catch.hpp>

#include <string>

#include "han/core/error.h"
#include "han/text/data_format.h"
#include "han/text/dataset.h"
#include "support/paths.h"
#include "support/read_error.h"

using namespace han;
using han::test::read_error;
using han::test::TempDir;

TEST_CASE("format_of_line: what each line format's first line looks like", "[text][data_format]") {
  struct Case {
    std::string line;
    std::optional<DataFormat> format;
  };
  const std::vector<Case> cases = {
      {"{\"label\": \"pos\", \"text\": \"fine\"}", DataFormat::jsonl},
      {"\xEF\xBB\xBF  {\"text\": \"a BOM and spaces first\"}", DataFormat::jsonl},
      {"__label__pos a fine film", DataFormat::fasttext},
      {"  __label__a __label__b two labels", DataFormat::fasttext},
      {"pos\ta fine film", DataFormat::tsv},
      {"label\ttext", DataFormat::tsv},
      {"a fine film", std::nullopt},
      {"__label_pos one underscore short", std::nullopt},
      {"", std::nullopt},
  };
  for (const Case& c : cases) {
    INFO(c.line);
    CHECK(format_of_line(c.line) == c.format);
  }
}

TEST_CASE("data.format auto reads jsonl, fastText, tsv and folders by their content, whatever their names",
          "[text][data_format]") {
  const TempDir dir;
  const std::string jsonl = dir.write("a.txt", "\n{\"label\": \"pos\", \"text\": \"good\"}\n{\"label\": \"neg\", \"text\": \"bad\"}\n");
  const std::string fasttext = dir.write("b.jsonl", "__label__pos good\n__label__neg bad\n");
  const std::string tsv = dir.write("c.csv", "label\ttext\npos\tgood\nneg\tbad\n");
  dir.write("d/pos/1.txt", "good");
  dir.write("d/neg/1.txt", "bad");
  for (const std::string& path : {jsonl, fasttext, tsv, dir.file("d")}) {
    INFO(path);
    const std::vector<Example> xs = read_examples(path, DataFormat::auto_detect, true);
    REQUIRE(xs.size() == 2);
    std::vector<std::string> labels{xs[0].label, xs[1].label};
    std::sort(labels.begin(), labels.end());
    CHECK(labels == std::vector<std::string>{"neg", "pos"});
    CHECK((xs[0].text == "good" || xs[0].text == "bad"));
  }
}

TEST_CASE("data.format auto refuses plain text naming file:line, and a named format that does not fit says which does",
          "[text][data_format]") {
  const TempDir dir;
  const std::string plain = dir.write("plain.txt", "\n\na fine film\n");
  CHECK(read_error(plain, DataFormat::auto_detect) ==
        plain + ":3: cannot tell the data format: the line is not a JSON record, does not start with __label__ and "
                "has no tab (plain text has no labels); name the format (data.format, or --data-format: jsonl, "
                "fasttext, tsv or folder)");
  const std::string fasttext = dir.write("f.jsonl", "__label__pos good\n");
  CHECK_THAT(read_error(fasttext, DataFormat::jsonl),
             Catch::StartsWith(fasttext + ":1: malformed JSON") &&
                 Catch::EndsWith(" (it looks like fastText: format fasttext, or auto)"));
  const std::string jsonl = dir.write("j.tsv", "{\"label\": \"pos\", \"text\": \"good\"}\n");
  CHECK_THAT(read_error(jsonl, DataFormat::tsv), Catch::EndsWith(" (it looks like JSON Lines: format jsonl, or auto)"));
  // A later line's error is that line's: no guess about the file.
  const std::string later = dir.write("l.txt", "__label__pos good\nno label\there\n");
  CHECK_THAT(read_error(later, DataFormat::fasttext), Catch::StartsWith(later + ":2: missing label") &&
                                                      !Catch::Contains("looks like"));
}

TEST_CASE("resolve_data_format names the one format of train, dev and test, and keeps auto otherwise",
          "[text][data_format]") {
  const TempDir dir;
  DataConfig data;
  data.format = DataFormat::auto_detect;
  data.train = dir.write("train.txt", "__label__pos good\n");
  data.dev = dir.write("dev.txt", "__label__neg bad\n");
  resolve_data_format(data);
  CHECK(data.format == DataFormat::fasttext);

  data.format = DataFormat::auto_detect;
  data.test = dir.write("test.jsonl", "{\"label\": \"pos\", \"text\": \"good\"}\n");
  resolve_data_format(data);
  CHECK(data.format == DataFormat::auto_detect);  // two formats: each file told apart as it is read

  data.test = dir.file("missing.jsonl");
  resolve_data_format(data);
  CHECK(data.format == DataFormat::auto_detect);  // the reader names the missing file

  data.format = DataFormat::tsv;  // a format set is kept
  data.test = "";
  resolve_data_format(data);
  CHECK(data.format == DataFormat::tsv);
}
