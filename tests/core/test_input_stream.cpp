// InputStream: plain bytes pass through untouched, gzip is recognised by its first bytes
// (not its name), concatenated members read as one stream, and damaged or cut-short gzip
// data is an error naming the input rather than a quiet early end.
#include <unistd.h>

#include <catch2/catch.hpp>

#include <string>

#include "han/core/error.h"
#include "han/core/input_stream.h"
#include "support/paths.h"
#include "support/run.h"

using han::InputStream;
using namespace han::test;

namespace {

std::string read_all(InputStream& in, std::size_t chunk = 7) {
  std::string out, buf(chunk, '\0');
  for (std::size_t n; (n = in.read(buf.data(), buf.size())) > 0;) out.append(buf, 0, n);
  return out;
}

std::string read_path(const std::string& path) {
  InputStream in(path);
  return read_all(in);
}

// The gzip tool's output for `text` (the reference encoder, not han's own).
std::string gzipped(const TempDir& tmp, const std::string& name, const std::string& text) {
  const std::string plain = tmp.write(name, text);
  REQUIRE(run("gzip -n -f " + plain).exit_code == 0);
  return plain + ".gz";
}

std::string many_lines(int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += "{\"label\": \"x\", \"text\": \"line " + std::to_string(i) + "\"}\n";
  return s;
}

}  // namespace

TEST_CASE("input stream: plain files read byte for byte, whatever their first bytes", "[input_stream]") {
  TempDir tmp;
  CHECK(read_path(tmp.write("empty", "")).empty());
  CHECK(read_path(tmp.write("one", "\x1f")) == "\x1f");                 // half a magic number
  CHECK(read_path(tmp.write("near", "\x1f\x8a rest")) == "\x1f\x8a rest");  // not gzip's
  const std::string text = many_lines(20000);                           // several raw chunks
  CHECK(read_path(tmp.write("big", text)) == text);
}

TEST_CASE("input stream: gzip data is decompressed, by content not by name", "[input_stream]") {
  TempDir tmp;
  const std::string text = many_lines(20000);
  const std::string gz = gzipped(tmp, "data.jsonl", text);
  CHECK(read_path(gz) == text);
  const std::string renamed = (tmp.path / "no_suffix").string();
  std::filesystem::rename(gz, renamed);
  CHECK(read_path(renamed) == text);
  InputStream in(renamed);
  CHECK(read_all(in, 1 << 16).size() == text.size());
  CHECK(in.plain_file_size() == 0);  // the file's size says nothing of the text's
}

TEST_CASE("input stream: concatenated gzip members read as one stream", "[input_stream]") {
  TempDir tmp;
  const std::string a = slurp(gzipped(tmp, "a", "first part\n"));
  const std::string b = slurp(gzipped(tmp, "b", "second part\n"));
  CHECK(read_path(tmp.write("ab.gz", a + b)) == "first part\nsecond part\n");
}

TEST_CASE("input stream: cut-short or damaged gzip data is an error naming the input", "[input_stream]") {
  TempDir tmp;
  const std::string gz = slurp(gzipped(tmp, "data", many_lines(5000)));
  const std::string cut = tmp.write("cut.gz", gz.substr(0, gz.size() / 2));
  CHECK_THROWS_WITH(read_path(cut), Catch::Contains(cut) && Catch::Contains("gzip data ends early"));
  std::string damaged = gz;
  damaged[gz.size() / 2] = static_cast<char>(damaged[gz.size() / 2] ^ 0x55);
  const std::string bad = tmp.write("bad.gz", damaged);
  CHECK_THROWS_WITH(read_path(bad), Catch::Contains(bad) && Catch::Contains("not valid gzip data"));
  const std::string trailing = tmp.write("trailing.gz", gz + "junk");
  CHECK_THROWS_WITH(read_path(trailing), Catch::Contains("not valid gzip data"));
}

TEST_CASE("input stream: missing files and folders are named", "[input_stream]") {
  TempDir tmp;
  CHECK_THROWS_WITH(InputStream((tmp.path / "nope").string()), Catch::Contains("nope: no such file"));
  CHECK_THROWS_WITH(InputStream(tmp.path.string()), Catch::Contains("is a directory"));
}

TEST_CASE("input stream: a pipe delivering one 0x1f byte at a time is still sniffed right", "[input_stream]") {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  REQUIRE(::write(fds[1], "\x1f", 1) == 1);
  REQUIRE(::write(fds[1], "A\n", 2) == 2);
  ::close(fds[1]);
  InputStream in(fds[0], "pipe");
  CHECK(read_all(in) == "\x1f" "A\n");
  ::close(fds[0]);
}

TEST_CASE("input stream: streams are told from files and folders, and '-' is /dev/stdin", "[input_stream]") {
  TempDir tmp;
  CHECK(han::is_stream_path("-"));
  CHECK(han::is_stream_path("/dev/null"));
  CHECK_FALSE(han::is_stream_path(tmp.write("f", "x")));
  CHECK_FALSE(han::is_stream_path(tmp.path.string()));
  CHECK_FALSE(han::is_stream_path((tmp.path / "missing").string()));
  REQUIRE(run("mkfifo " + (tmp.path / "fifo").string()).exit_code == 0);
  CHECK(han::is_stream_path((tmp.path / "fifo").string()));
  CHECK(han::same_input("-", "/dev/stdin"));
  CHECK(han::same_input("-", "-"));
  CHECK_FALSE(han::same_input("-", tmp.write("g", "y")));
}
