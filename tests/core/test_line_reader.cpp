// The line reader every data file and stdin goes through: line breaks (\n, \r\n and, for
// data files, a lone \r), a last line without a break, empty lines, the length cap, line
// numbers, breaks that straddle two reads, and readiness on a pipe.
#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "han/core/error.h"
#include "han/core/line_reader.h"
#include "support/paths.h"

using han::LineReader;
using han::test::TempDir;
using Lines = std::vector<std::string>;

namespace {

struct Read {
  Lines lines;
  std::vector<std::size_t> numbers;  // line_number() after each line
  std::vector<bool> truncated;
};

// Every line of `bytes`, read from a regular file as a data file is.
Read read_all(const std::string& bytes, bool cr_ends_line,
              std::size_t max_line_bytes = han::kMaxLineBytes) {
  TempDir tmp;
  const std::string path = tmp.write("input", bytes);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  han::InputStream in(fd, path);
  LineReader reader(in, max_line_bytes, cr_ends_line);
  Read r;
  std::string line;
  while (reader.next(line)) {
    r.lines.push_back(line);
    r.numbers.push_back(reader.line_number());
    r.truncated.push_back(reader.truncated());
  }
  CHECK_FALSE(reader.next(line));  // end of input stays the end
  ::close(fd);
  return r;
}

Lines lines(const std::string& bytes, bool cr_ends_line) { return read_all(bytes, cr_ends_line).lines; }

}  // namespace

TEST_CASE("line reader: LF and CRLF end lines, a lone CR only with cr_ends_line", "[line_reader]") {
  CHECK(lines("a\nb\r\nc\rd\n", true) == Lines{"a", "b", "c", "d"});
  CHECK(lines("a\nb\r\nc\rd\n", false) == Lines{"a", "b", "c\rd"});
  CHECK(lines("a\r\r\nb\n", true) == Lines{"a", "", "b"});
  CHECK(lines("a\r\r\nb\n", false) == Lines{"a\r", "b"});  // only the \r of the break goes
  CHECK(lines("\r\r", true) == Lines{"", ""});
}

TEST_CASE("line reader: a last line without a break, empty lines and line numbers", "[line_reader]") {
  for (const bool cr : {true, false}) {
    INFO("cr_ends_line " << cr);
    CHECK(lines("a\nb", cr) == Lines{"a", "b"});
    CHECK(lines("a\n", cr) == Lines{"a"});  // a final break opens no extra line
    CHECK(lines("", cr).empty());
    CHECK(lines("\n", cr) == Lines{""});
    CHECK(lines("\r\n", cr) == Lines{""});
    const Read r = read_all("\n\na\r\n\nb", cr);
    CHECK(r.lines == Lines{"", "", "a", "", "b"});
    CHECK(r.numbers == std::vector<std::size_t>{1, 2, 3, 4, 5});
  }
  // The reader passes a byte-order mark through; the dataset reader strips it.
  CHECK(lines("\xEF\xBB\xBFx\n", true) == Lines{"\xEF\xBB\xBFx"});
}

TEST_CASE("line reader: a line over the cap keeps its start, skips the rest, and says so", "[line_reader]") {
  const Read r = read_all("abcdefgh\nxy\nabcd\r\n" + std::string(200000, 'z') + "\nend", true, 4);
  CHECK(r.lines == Lines{"abcd", "xy", "abcd", "zzzz", "end"});
  CHECK(r.truncated == std::vector<bool>{true, false, false, true, false});
  CHECK(r.numbers == std::vector<std::size_t>{1, 2, 3, 4, 5});
  // Under the cap, a line longer than one read arrives whole.
  const std::string long_line(300000, 'q');
  CHECK(lines("a\n" + long_line + "\r\nb", true) == Lines{"a", long_line, "b"});
}

TEST_CASE("line reader: a CRLF split between two reads is one line break", "[line_reader]") {
  // Every third byte is a \r, so some read boundary falls between a \r and its \n
  // whatever the read size.
  std::string crlf, cr;
  for (int i = 0; i < 100000; ++i) crlf += "x\r\n";
  for (int i = 0; i < 100000; ++i) cr += "xy\r";
  for (const bool cr_ends_line : {true, false}) {
    const Lines got = lines(crlf, cr_ends_line);
    CHECK(got.size() == 100000);
    CHECK(got == Lines(100000, "x"));
  }
  CHECK(lines(cr, true) == Lines(100000, "xy"));
}

TEST_CASE("line reader: ready() on a pipe, and read errors", "[line_reader]") {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  han::InputStream in(fds[0], "pipe");
  LineReader reader(in);
  CHECK_FALSE(reader.ready());
  REQUIRE(::write(fds[1], "one\ntwo\nthr", 11) == 11);
  CHECK(reader.ready());
  std::string line;
  REQUIRE(reader.next(line));
  CHECK(line == "one");
  CHECK(reader.ready());  // "two" is buffered
  REQUIRE(reader.next(line));
  CHECK(line == "two");
  CHECK_FALSE(reader.ready());  // only part of a line, and nothing more to read
  ::close(fds[1]);
  CHECK(reader.ready());  // end of input is ready too
  REQUIRE(reader.next(line));
  CHECK(line == "thr");
  CHECK_FALSE(reader.next(line));
  ::close(fds[0]);

  // Reading a folder fails in read(): an I/O fault, exit code 1.
  TempDir tmp;
  const int dir = ::open(tmp.path.c_str(), O_RDONLY | O_DIRECTORY);
  REQUIRE(dir >= 0);
  han::InputStream dir_input(dir, tmp.path);
  LineReader from_dir(dir_input);
  try {
    from_dir.next(line);
    FAIL("reading a folder did not fail");
  } catch (const han::Error& e) {
    CHECK(e.exit_code() == 1);
    CHECK_THAT(e.what(), Catch::Contains("cannot read input"));
  }
  ::close(dir);
}
