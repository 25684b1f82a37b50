// Every command in the README and docs/ that a user can run without ../shared runs as
// written. Each ```sh block, and each "$ " line of a ```console block, runs with bash in a
// scratch folder holding copies of configs/ and data/ and the binary as build/han, after
// the quick start's model (runs/quickstart, as scripts/demo.sh trains it); the files run
// in order, README.md first, each block after the ones before it in its file. A block
// that cannot run here says why on the line before it:
//   <!-- not run by the docs test: needs ../shared -->
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/paths.h"
#include "support/run.h"

using namespace han::test;
namespace fs = std::filesystem;

namespace {

struct Block {
  std::string file;
  int line = 0;       // of the opening fence
  std::string code;   // what bash runs
  std::string skip;   // the reason given for not running it, or ""
};

// `text` as one shell word (temp paths hold no single quote).
std::string quoted(const std::string& text) { return "'" + text + "'"; }

const std::string kSkipMark = "<!-- not run by the docs test: ";

// The commands of a console block: "$ " lines, with their backslash continuations.
std::string console_commands(const std::vector<std::string>& lines) {
  std::string out;
  bool continued = false;
  for (const std::string& l : lines) {
    if (continued || l.rfind("$ ", 0) == 0) {
      out += (continued ? l : l.substr(2)) + "\n";
      continued = !l.empty() && l.back() == '\\';
    }
  }
  return out;
}

std::vector<Block> runnable_blocks(const fs::path& path, const std::string& name) {
  std::ifstream in(path);
  std::vector<Block> blocks;
  std::string line, previous;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    const bool sh = line == "```sh", console = line == "```console";
    if (!sh && !console) {
      if (!line.empty()) previous = line;
      continue;
    }
    Block b{name, number, "", ""};
    if (previous.rfind(kSkipMark, 0) == 0) b.skip = previous.substr(kSkipMark.size());
    std::vector<std::string> body;
    while (std::getline(in, line) && line != "```") {
      ++number;
      body.push_back(line);
    }
    ++number;
    if (console) {
      b.code = console_commands(body);
    } else {
      for (const std::string& l : body) b.code += l + "\n";
    }
    blocks.push_back(b);
    previous.clear();
  }
  return blocks;
}

std::vector<Block> documented_blocks() {
  std::vector<fs::path> pages;
  for (const auto& e : fs::directory_iterator(source_path("docs")))
    if (e.path().extension() == ".md") pages.push_back(e.path());
  std::sort(pages.begin(), pages.end());
  pages.insert(pages.begin(), source_path("README.md"));
  std::vector<Block> blocks;
  for (const fs::path& p : pages) {
    const std::string name = p.filename() == "README.md" && p.parent_path().filename() != "docs"
                                 ? "README.md"
                                 : "docs/" + p.filename().string();
    for (Block& b : runnable_blocks(p, name)) blocks.push_back(std::move(b));
  }
  return blocks;
}

}  // namespace

TEST_CASE("every command in the README and docs/ runs as written", "[docs]") {
  TempDir scratch;
  const fs::path root = scratch.path;
  fs::copy(source_path("configs"), root / "configs", fs::copy_options::recursive);
  fs::copy(source_path("data"), root / "data", fs::copy_options::recursive);
  fs::create_directories(root / "build");
  fs::create_symlink(han_binary(), root / "build" / "han");
  const std::string in_root = "cd " + quoted(root.string()) + " && ";
  REQUIRE(run(in_root + "build/han train --config configs/quickstart.json --output runs/quickstart --quiet").exit_code == 0);

  int ran = 0;
  for (const Block& b : documented_blocks()) {
    INFO(b.file << ":" << b.line << "\n" << b.code);
    if (!b.skip.empty()) {
      CHECK(b.skip.size() > 8);  // a reason, not a bare mark
      continue;
    }
    REQUIRE_FALSE(b.code.empty());
    const fs::path script = root / ("block_" + std::to_string(ran) + ".sh");
    std::ofstream(script) << "set -euo pipefail\n" << b.code;
    const RunResult r = run(in_root + "bash " + quoted(script.string()));
    INFO("stdout:\n" << r.out << "\nstderr:\n" << r.err);
    CHECK(r.exit_code == 0);
    ++ran;
  }
  CHECK(ran >= 30);  // the parser found the blocks
}
