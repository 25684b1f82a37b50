// han predict as a user runs it: what is answered before an input error, --on-error skip,
// rows that name their source and id, tsv with a fixed column count, '-' among the paths.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/cli_fixture.h"
#include "support/paths.h"
#include "support/run.h"

using namespace han::test;
using nlohmann::json;

namespace {

std::size_t count_fields(const std::string& row) { return static_cast<std::size_t>(std::count(row.begin(), row.end(), '\t')) + 1; }

std::vector<std::string> fields_of(const std::string& row) {
  std::vector<std::string> out(1);
  for (char c : row) {
    if (c == '\t') out.emplace_back();
    else out.back() += c;
  }
  return out;
}

const std::string kGood = "{\"text\": \"A wonderful film\"}\n";
// 3 good records, a broken one (line 4), 2 good.
const std::string kBrokenFourth = kGood + kGood + kGood + "{\"text\": \n" + kGood + kGood;

}  // namespace

TEST_CASE("predict answers the records read before a malformed one, then stops naming file:line", "[cli][predict]") {
  const CliFixture& f = cli_fixture();
  const RunResult r = run(han_cmd("predict --data-format jsonl --model " + f.model), kBrokenFourth);
  CHECK(r.exit_code == 2);
  CHECK(lines_of(r.out).size() == 3);
  const auto errs = lines_of(r.err);
  REQUIRE(errs.size() == 1);
  CHECK_THAT(errs[0], Catch::StartsWith("han: error: <stdin>:4: malformed JSON"));

  TempDir tmp;
  write(tmp.path / "in.jsonl", kBrokenFourth);
  const RunResult from_file = run(han_cmd("predict --data-format jsonl --format json --model " + f.model + " " + (tmp.path / "in.jsonl").string()));
  CHECK(from_file.exit_code == 2);
  CHECK(lines_of(from_file.out).size() == 3);
  CHECK_THAT(from_file.err, Catch::Contains("in.jsonl:4: malformed JSON"));
}

TEST_CASE("predict answers the lines of earlier sources before a read error", "[cli][predict]") {
  const CliFixture& f = cli_fixture();
  TempDir tmp;
  write(tmp.path / "a.txt", "good\nbad\n");
  // stdin is a directory: opening it fails after a.txt is answered.
  const RunResult r = run(han_cmd("predict --data-format lines --model " + f.model + " " + (tmp.path / "a.txt").string() + " - < " +
                                  tmp.path.string()));
  CHECK(r.exit_code == 2);
  CHECK(lines_of(r.out).size() == 2);
  const auto errs = lines_of(r.err);
  REQUIRE(errs.size() == 1);
  CHECK(errs[0] == "han: error: <stdin>: is a directory, expected a file");
}

TEST_CASE("predict --on-error skip answers a bad record in place with an error row and goes on", "[cli][predict]") {
  const CliFixture& f = cli_fixture();
  const RunResult js = run(han_cmd("predict --data-format jsonl --format json --on-error skip --model " + f.model), kBrokenFourth);
  INFO(js.err);
  CHECK(js.exit_code == 0);
  const auto rows = lines_of(js.out);
  REQUIRE(rows.size() == 6);
  const json bad = json::parse(rows[3]);
  CHECK(bad["id"] == 4);
  CHECK_THAT(bad["error"].get<std::string>(), Catch::StartsWith("<stdin>:4: malformed JSON"));
  CHECK_FALSE(bad.contains("label"));
  CHECK(json::parse(rows[4])["id"] == 5);
  CHECK(json::parse(rows[4]).contains("label"));
  const auto warnings = lines_of(js.err);
  REQUIRE(warnings.size() == 1);
  CHECK_THAT(warnings[0], Catch::Contains("<stdin>:4: malformed JSON"));

  const RunResult tsv = run(han_cmd("predict --data-format jsonl --on-error skip --top-k 2 --model " + f.model), kBrokenFourth);
  CHECK(tsv.exit_code == 0);
  const auto trows = lines_of(tsv.out);
  REQUIRE(trows.size() == 6);
  // label1 prob1 label2 prob2 gold error, on every row
  for (const std::string& row : trows) CHECK(count_fields(row) == 6);
  const auto fields = fields_of(trows[3]);
  CHECK(fields[0].empty());
  CHECK(fields[1].empty());
  CHECK_THAT(fields[5], Catch::StartsWith("<stdin>:4: malformed JSON"));
  CHECK(fields_of(trows[0])[5].empty());
}

TEST_CASE("predict --on-error skip names the first 10 bad records, counts the rest, fails when none is good",
          "[cli][predict]") {
  const CliFixture& f = cli_fixture();
  std::string input = kGood;
  for (int i = 0; i < 15; ++i) input += "not json\n";
  const RunResult r = run(han_cmd("predict --data-format jsonl --on-error skip --model " + f.model), input);
  CHECK(r.exit_code == 0);
  CHECK(lines_of(r.out).size() == 16);
  const auto warnings = lines_of(r.err);
  REQUIRE(warnings.size() == 11);
  CHECK_THAT(warnings[10], Catch::Contains("15 bad records skipped"));

  const RunResult none = run(han_cmd("predict --data-format jsonl --on-error skip --model " + f.model), "not json\n[1]\n");
  CHECK(none.exit_code == 2);
  CHECK(lines_of(none.out).size() == 2);
  CHECK_THAT(none.err, Catch::Contains("none of the 2 records could be read"));
}

TEST_CASE("predict --data-format files --on-error skip answers a missing file with an error row", "[cli][predict]") {
  const CliFixture& f = cli_fixture();
  TempDir tmp;
  write(tmp.path / "a.txt", "A wonderful film");
  const std::string a = (tmp.path / "a.txt").string(), missing = (tmp.path / "missing.txt").string();
  const RunResult r = run(han_cmd("predict --on-error skip --model " + f.model + " " + missing + " " + a));
  CHECK(r.exit_code == 0);
  const auto rows = lines_of(r.out);
  REQUIRE(rows.size() == 2);
  CHECK(fields_of(rows[0]) == std::vector<std::string>{missing, "", "", missing + ": no such file"});
  CHECK(fields_of(rows[1])[0] == a);
  CHECK(fields_of(rows[1])[3].empty());
}

TEST_CASE("predict json gives every line an id: the record's own, else the line number", "[cli][predict]") {
  const CliFixture& f = cli_fixture();
  const auto ids = [&](const std::string& args, const std::string& input) {
    const RunResult r = run(han_cmd("predict --format json --model " + f.model + " " + args), input);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    std::vector<json> out;
    for (const std::string& row : lines_of(r.out)) out.push_back(json::parse(row).value("id", json()));
    return out;
  };
  CHECK(ids("", "good\n\nbad\n") == std::vector<json>{1, 2, 3});
  CHECK(ids("--data-format jsonl",
            "{\"id\": \"a7\", \"text\": \"good\"}\n{\"text\": \"bad\", \"id\": 42}\n\n{\"text\": \"x\", \"id\": null}\n") ==
        std::vector<json>{"a7", 42, 3, 4});
  const RunResult object_id = run(han_cmd("predict --data-format jsonl --model " + f.model), "{\"text\": \"x\", \"id\": {}}\n");
  CHECK(object_id.exit_code == 2);
  CHECK_THAT(object_id.err, Catch::Contains("<stdin>:1: \"id\" must be a string or a number, got object"));
}

TEST_CASE("predict over several sources names each row's source, '-' included at its place", "[cli][predict]") {
  const CliFixture& f = cli_fixture();
  TempDir tmp;
  write(tmp.path / "a.txt", "good\nbad\n");
  write(tmp.path / "b.txt", "fine\n");
  const std::string a = (tmp.path / "a.txt").string(), b = (tmp.path / "b.txt").string();
  const RunResult tsv = run(han_cmd("predict --data-format lines --model " + f.model + " " + a + " - " + b), "from stdin\n");
  REQUIRE(tsv.exit_code == 0);
  std::vector<std::string> sources;
  for (const std::string& row : lines_of(tsv.out)) {
    CHECK(count_fields(row) == 3);
    sources.push_back(fields_of(row)[0]);
  }
  CHECK(sources == std::vector<std::string>{a, a, "<stdin>", b});

  const RunResult js = run(han_cmd("predict --data-format lines --format json --model " + f.model + " " + a + " " + b));
  REQUIRE(js.exit_code == 0);
  const json last = json::parse(lines_of(js.out).back());
  CHECK(last["path"] == b);
  CHECK(last["id"] == 1);

  const RunResult files = run(han_cmd("predict --model " + f.model + " " + a + " - " + b), "all of stdin\nis one document\n");
  REQUIRE(files.exit_code == 0);
  const auto rows = lines_of(files.out);
  REQUIRE(rows.size() == 3);
  CHECK(fields_of(rows[1])[0] == "<stdin>");
}

TEST_CASE("predict tsv keeps one column count: a gold column for every jsonl record", "[cli][predict]") {
  const CliFixture& f = cli_fixture();
  const RunResult r = run(han_cmd("predict --data-format jsonl --top-k 5 --model " + f.model),
                          "{\"text\": \"great\", \"label\": \"pos\"}\n{\"text\": \"awful\"}\n\n");
  REQUIRE(r.exit_code == 0);
  const auto rows = lines_of(r.out);
  REQUIRE(rows.size() == 3);
  // two labels in the model: label1 prob1 label2 prob2 gold
  for (const std::string& row : rows) CHECK(count_fields(row) == 5);
  CHECK(fields_of(rows[0])[4] == "pos");
  CHECK(fields_of(rows[1])[4].empty());
}

TEST_CASE("predict refuses --explain with tsv output", "[cli][predict]") {
  const CliFixture& f = cli_fixture();
  const RunResult r = run(han_cmd("predict --explain --model " + f.model), "good\n");
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK_THAT(r.err, Catch::StartsWith("han: error: --explain needs --format json or html"));
}

TEST_CASE("the recipe (docs/recipes.md) sharding predict with split and xargs keeps one output line per input line, in order",
          "[cli][predict][recipe]") {
  const CliFixture& f = cli_fixture();
  TempDir dir;
  // Real reviews with an empty line and a text of no words among them; no final newline.
  std::string input;
  const auto reviews = lines_of(slurp(source_path("data/dev.jsonl")));
  for (std::size_t i = 0; i < 230 && i < reviews.size(); ++i) {
    std::string text = json::parse(reviews[i])["text"].get<std::string>();
    std::replace(text.begin(), text.end(), '\n', ' ');
    input += (i == 57 ? "" : i == 101 ? "..." : text) + "\n";
  }
  input += "the last line";
  const std::string docs = dir.write("docs.txt", input);
  const RunResult one = run(han_cmd("predict --model " + f.model + " < " + docs));
  REQUIRE(one.exit_code == 0);
  REQUIRE(lines_of(one.out).size() == 231);
  // As in docs/recipes.md: chunks of 40 lines, 2 at a time, joined in name order.
  const RunResult sharded =
      run("cd " + dir.path.string() + " && split -d -a 4 -l 40 docs.txt chunk. && ls chunk.???? | xargs -P 2 -I{} " +
          "sh -c \"" + han_cmd("predict --threads 1 --model " + f.model) + " < {} > {}.out\" && cat chunk.*.out");
  INFO(sharded.err);
  REQUIRE(sharded.exit_code == 0);
  CHECK(lines_of(sharded.out).size() == 231);
  CHECK(sharded.out == one.out);
}

TEST_CASE("predict without --data-format reads JSON records and fastText lines by their first line, says so, "
          "and answers their text alone",
          "[cli][predict][data_format]") {
  const CliFixture& f = cli_fixture();
  const std::string texts = "A wonderful film\nA dull and lifeless script\n";
  const RunResult plain = run(han_cmd("predict --model " + f.model), texts);
  REQUIRE(plain.exit_code == 0);
  REQUIRE(lines_of(plain.out).size() == 2);

  const std::string jsonl = "{\"label\": \"neg\", \"text\": \"A wonderful film\"}\n{\"text\": \"A dull and lifeless script\"}\n";
  const std::string fasttext = "__label__neg A wonderful film\n__label__pos  A dull and lifeless script\n";
  for (const auto& [input, said] : {std::pair{jsonl, "JSON records: their \"text\" is read"},
                                    std::pair{fasttext, "fastText lines: their labels are ignored"}}) {
    INFO(input);
    const RunResult r = run(han_cmd("predict --model " + f.model), input);
    CHECK(r.exit_code == 0);
    CHECK(r.out == plain.out);  // the same answers as the bare text
    CHECK(r.err == std::string("han: <stdin>: ") + said + "; --data-format lines reads each line as text\n");

    // A file holding records is read record by record, whatever its name.
    TempDir tmp;
    const std::string file = (tmp.path / "records.txt").string();
    write(file, input);
    const RunResult from_file = run(han_cmd("predict --model " + f.model + " " + file));
    CHECK(from_file.exit_code == 0);
    CHECK(from_file.out == plain.out);
    CHECK_THAT(from_file.err, Catch::Contains(file + ": " + said));
  }
  // Named, the format is read as named: the JSON is text, and no word is said.
  const RunResult as_lines = run(han_cmd("predict --data-format lines --model " + f.model), jsonl);
  CHECK(as_lines.exit_code == 0);
  CHECK(as_lines.err.empty());
  CHECK(lines_of(as_lines.out).size() == 2);
  // A file of plain text stays one document.
  TempDir tmp;
  const std::string doc = (tmp.path / "doc.txt").string();
  write(doc, texts);
  const RunResult whole = run(han_cmd("predict --model " + f.model + " " + doc));
  CHECK(lines_of(whole.out).size() == 1);
  CHECK(whole.err.empty());
}

TEST_CASE("predict --data-format fasttext and tsv read records, their labels as gold answers", "[cli][predict][data_format]") {
  const CliFixture& f = cli_fixture();
  const RunResult ft = run(han_cmd("predict --data-format fasttext --format json --model " + f.model),
                           "__label__pos A wonderful film\n");
  CHECK(ft.exit_code == 0);
  CHECK_THAT(ft.out, Catch::Contains("\"gold\":\"pos\""));
  const RunResult tsv = run(han_cmd("predict --data-format tsv --format json --model " + f.model), "neg\tA dull film\n");
  CHECK(tsv.exit_code == 0);
  CHECK_THAT(tsv.out, Catch::Contains("\"gold\":\"neg\""));
}
