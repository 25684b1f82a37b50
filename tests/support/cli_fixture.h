#pragma once
// The small model the CLI tests share, trained through the han binary as a user trains
// one. CTest trains it once per run: the hidden case "cli fixture: train the shared
// model" is the cli_fixture_setup test, a FIXTURES_SETUP of every [cli] test (see
// CMakeLists.txt). A [cli] case run alone (build/han_tests "<case>") trains it first
// when it is missing or was made from another han binary or other bundled data.
// It lives in the build folder (HAN_CLI_FIXTURE_DIR) and the tests only read it: each
// writes its own files into a TempDir.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <string>

#include "support/paths.h"
#include "support/run.h"

namespace han::test {

struct CliFixture {
  std::filesystem::path dir = HAN_CLI_FIXTURE_DIR;
  std::string data = (dir / "small.jsonl").string();  // what it was trained on
  std::filesystem::path run_dir = dir / "run";        // train --output
  std::string model = (run_dir / "model.han").string();
  RunResult train;  // how `han train` ended: exit code, stdout, stderr
};

namespace detail {

// What the fixture is made from (the binary and the bundled inputs), by size and time.
inline std::string fixture_stamp() {
  std::string stamp;
  for (const std::string& p : {han_binary(), source_path("configs/quickstart.json"), source_path("data/train.jsonl"),
                               source_path("data/dev.jsonl"), source_path("data/test.jsonl")}) {
    std::error_code size_ec, time_ec;
    const auto size = std::filesystem::file_size(p, size_ec);
    const auto time = std::filesystem::last_write_time(p, time_ec);
    stamp += p + " " + std::to_string(size_ec ? 0 : size) + " " +
             std::to_string(time_ec ? 0 : time.time_since_epoch().count()) + "\n";
  }
  return stamp;
}

// An exclusive lock on a file beside the fixture for its lifetime: two test processes
// never train or read a half-made fixture.
class FixtureLock {
 public:
  explicit FixtureLock(const std::filesystem::path& path)
      : fd_(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {
    REQUIRE(fd_ >= 0);
    while (::flock(fd_, LOCK_EX) != 0) REQUIRE(errno == EINTR);
  }
  ~FixtureLock() { ::close(fd_); }
  FixtureLock(const FixtureLock&) = delete;
  FixtureLock& operator=(const FixtureLock&) = delete;

 private:
  int fd_;
};

inline void write_text(const std::filesystem::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}

// Trains the fixture afresh; the stamp, written last, marks it complete.
inline void train_fixture(const CliFixture& f, const std::string& stamp) {
  std::filesystem::remove_all(f.dir);
  std::filesystem::create_directories(f.dir);
  // A small model on part of the bundled data: seconds, not minutes.
  const auto all = lines_of(slurp(source_path("data/train.jsonl")));
  std::string small;
  for (std::size_t i = 0; i < 1200 && i < all.size(); ++i) small += all[i] + "\n";
  write_text(f.data, small);
  const RunResult r = run(han_cmd("train --config " + source_path("configs/quickstart.json") + " --output " +
                                  f.run_dir.string() + " --set data.train=" + f.data +
                                  " --set trainer.epochs=1 --set model.embedding_dim=32 --set model.word_hidden=16"
                                  " --set model.sentence_hidden=16 --set model.attention_dim=32 --quiet"));
  write_text(f.dir / "train.exit", std::to_string(r.exit_code));
  write_text(f.dir / "train.out", r.out);
  write_text(f.dir / "train.err", r.err);
  write_text(f.dir / "stamp", stamp);
}

inline const CliFixture& load_fixture(bool retrain) {
  static CliFixture f;
  const FixtureLock lock(f.dir.string() + ".lock");
  const std::string stamp = fixture_stamp();
  if (retrain || slurp(f.dir / "stamp") != stamp) train_fixture(f, stamp);
  f.train.exit_code = std::stoi(slurp(f.dir / "train.exit"));
  f.train.out = slurp(f.dir / "train.out");
  f.train.err = slurp(f.dir / "train.err");
  return f;
}

}  // namespace detail

// The shared fixture, trained first when missing or stale (once per process).
inline const CliFixture& cli_fixture() {
  static const CliFixture& f = detail::load_fixture(false);
  return f;
}

// Trains the fixture whatever is there (the cli_fixture_setup test).
inline const CliFixture& retrain_cli_fixture() { return detail::load_fixture(true); }

}  // namespace han::test
