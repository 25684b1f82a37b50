#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <string>

#include "han/core/error.h"
#include "support/paths.h"
#include "han/core/io.h"

using Catch::Contains;

namespace {

namespace fs = std::filesystem;

using han::test::TempDir;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void spit(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

int exit_code_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const han::Error& e) {
    return e.exit_code();
  }
  return 0;
}

}  // namespace

TEST_CASE("read_file reads whole files, binary included", "[io]") {
  TempDir dir;
  const std::string p = dir.file("a.bin");
  std::string data("line one\nline two\r\n\0\xff\x80 end", 27);
  for (int i = 0; i < 20000; ++i) data += static_cast<char>(i * 7);  // spans several reads
  spit(p, data);
  CHECK(han::read_file(p) == data);

  const std::string empty = dir.file("empty.txt");
  spit(empty, "");
  CHECK(han::read_file(empty).empty());
}

TEST_CASE("read_file names the path in its errors", "[io]") {
  TempDir dir;
  const std::string missing = dir.file("missing.txt");
  REQUIRE_THROWS_WITH(han::read_file(missing), missing + ": no such file");
  CHECK(exit_code_of([&] { han::read_file(missing); }) == 2);
  REQUIRE_THROWS_WITH(han::read_file(dir.path.string()),
                      dir.path.string() + ": is a directory, expected a file");
  REQUIRE_THROWS_WITH(han::read_file(dir.file("sub/missing.txt")), Contains("no such file"));

  if (::geteuid() != 0) {  // root reads anything, so this only runs as a normal user
    const std::string locked = dir.file("locked.txt");
    spit(locked, "secret");
    ::chmod(locked.c_str(), 0);
    REQUIRE_THROWS_WITH(han::read_file(locked), Contains(locked + ": cannot read: "));
  }
}

TEST_CASE("require_regular_file", "[io]") {
  TempDir dir;
  const std::string p = dir.file("x.txt");
  spit(p, "x");
  CHECK_NOTHROW(han::require_regular_file(p));
  REQUIRE_THROWS_WITH(han::require_regular_file(dir.file("y.txt")), Contains("y.txt: no such file"));
  REQUIRE_THROWS_WITH(han::require_regular_file(dir.path.string()), Contains("is a directory"));
}

TEST_CASE("write_file_atomically creates and replaces files, leaving no temp", "[io]") {
  TempDir dir;
  const std::string p = dir.file("out.bin");
  han::write_file_atomically(p, "first");
  CHECK(slurp(p) == "first");
  const std::string binary("a\0b\xff", 4);
  han::write_file_atomically(p, binary);
  CHECK(slurp(p) == binary);
  han::write_file_atomically(p, "");
  CHECK(slurp(p).empty());
  CHECK(dir.entries() == std::set<std::string>{"out.bin"});

  // A leftover temp from a killed process with our pid is replaced, not an obstacle.
  const std::string stale = p + ".tmp." + std::to_string(::getpid());
  spit(stale, "stale");
  han::write_file_atomically(p, "again");
  CHECK(slurp(p) == "again");
  CHECK(dir.entries() == std::set<std::string>{"out.bin"});
}

TEST_CASE("write_file_atomically into a missing folder names it", "[io]") {
  TempDir dir;
  const std::string p = dir.file("nope/out.txt");
  REQUIRE_THROWS_WITH(han::write_file_atomically(p, "x"),
                      Contains("cannot write " + p) && Contains(dir.file("nope")));
  CHECK(exit_code_of([&] { han::write_file_atomically(p, "x"); }) == 1);
  CHECK(dir.entries().empty());

  // A path whose folder is a file.
  const std::string f = dir.file("plain");
  spit(f, "keep");
  REQUIRE_THROWS_WITH(han::write_file_atomically(f + "/out.txt", "x"), Contains("cannot write"));
  CHECK(slurp(f) == "keep");
}

TEST_CASE("a failed write leaves the old file intact", "[io]") {
  TempDir dir;
  const std::string p = dir.file("model.han");
  spit(p, "old contents");

  SECTION("the temp file cannot be created") {
    // A folder sits where the temp file would go.
    const std::string tmp = p + ".tmp." + std::to_string(::getpid());
    fs::create_directory(tmp);
    REQUIRE_THROWS_WITH(han::write_file_atomically(p, "new contents"),
                        Contains("cannot write " + p));
    CHECK(exit_code_of([&] { han::write_file_atomically(p, "new"); }) == 1);
    CHECK(slurp(p) == "old contents");
    CHECK(fs::is_directory(tmp));  // not ours: left alone
    fs::remove(tmp);
    CHECK(dir.entries() == std::set<std::string>{"model.han"});
  }

  SECTION("the data cannot be written (file size limit, like a full disk)") {
    struct rlimit old_limit;
    REQUIRE(::getrlimit(RLIMIT_FSIZE, &old_limit) == 0);
    struct rlimit small = old_limit;
    small.rlim_cur = 4096;
    REQUIRE(::setrlimit(RLIMIT_FSIZE, &small) == 0);
    void (*old_handler)(int) = ::signal(SIGXFSZ, SIG_IGN);
    std::string error;
    try {
      han::write_file_atomically(p, std::string(1 << 20, 'x'));
    } catch (const han::Error& e) {
      error = e.what();
      CHECK(e.exit_code() == 1);
    }
    ::signal(SIGXFSZ, old_handler);
    REQUIRE(::setrlimit(RLIMIT_FSIZE, &old_limit) == 0);
    CHECK_THAT(error, Contains("cannot write " + p));
    CHECK(slurp(p) == "old contents");
    CHECK(dir.entries() == std::set<std::string>{"model.han"});
  }

  SECTION("the target is a folder") {
    const std::string d = dir.file("adir");
    fs::create_directory(d);
    REQUIRE_THROWS_WITH(han::write_file_atomically(d, "x"), Contains("cannot write " + d));
    CHECK(fs::is_directory(d));
    fs::remove(d);
    CHECK(dir.entries() == std::set<std::string>{"model.han"});
  }
}
