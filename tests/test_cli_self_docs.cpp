// What han says about itself: the version line, the man page and shell completion are
// built from the parser's own options, so every verb and flag in --help appears in them;
// `cmake --install` puts all three in place.
#include <catch2/catch.hpp>

#include <filesystem>
#include <regex>
#include <set>
#include <string>

#include "support/paths.h"
#include "support/run.h"

using namespace han::test;

namespace {

const std::vector<std::string> kVerbs = {"train", "predict", "eval", "info", "ablate", "embed", "prepare"};

// The long flags a verb's --help lists.
std::set<std::string> help_flags(const std::string& verb) {
  const std::string help = run(han_cmd(verb + " --help")).out;
  std::set<std::string> flags;
  const std::regex flag("--[a-z][a-z-]*");
  for (auto it = std::sregex_iterator(help.begin(), help.end(), flag); it != std::sregex_iterator(); ++it)
    flags.insert(it->str());
  return flags;
}

// What bash completion offers for the words typed so far (the last one being completed).
std::string completions(const std::string& words) {
  const std::string script = (std::filesystem::temp_directory_path() / ("han_completion_" + std::to_string(::getpid()))).string();
  REQUIRE(run(han_cmd("--completion bash") + " > " + script).exit_code == 0);
  const RunResult r = run("source " + script + "; COMP_WORDS=(" + words + "); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); " +
                          "_han; echo \"${COMPREPLY[*]}\"");
  std::filesystem::remove(script);
  return r.out;
}

}  // namespace

TEST_CASE("han --version names the version, the commit and the build", "[self_docs]") {
  const RunResult r = run(han_cmd("--version"));
  CHECK(r.exit_code == 0);
  CHECK(std::regex_match(r.out, std::regex("han [0-9]+\\.[0-9]+\\.[0-9]+ \\(commit [0-9A-Za-z.-]+, "
                                           "(native build \\(-march=native\\), kernels native|portable build, kernels "
                                           "(generic|(generic|avx2|avx512) \\(picked from generic, avx2, avx512\\))), "
                                           "no MPI\\)\n")));
}

TEST_CASE("han --man documents every verb and every flag its --help lists", "[self_docs]") {
  const RunResult man = run(han_cmd("--man"));
  REQUIRE(man.exit_code == 0);
  CHECK(man.out.rfind(".TH HAN 1", 0) == 0);
  for (const std::string& verb : kVerbs) {
    INFO(verb);
    CHECK(man.out.find(".SS han " + verb + "\n") != std::string::npos);
    for (const std::string& flag : help_flags(verb)) {
      INFO(flag);
      CHECK(man.out.find(flag) != std::string::npos);
    }
  }
}

TEST_CASE("bash completion offers the verbs, each verb's flags, and refuses unknown shells", "[self_docs]") {
  CHECK(completions("han pr") == "predict prepare\n");
  CHECK(completions("han pre") == "predict prepare\n");
  CHECK(completions("han prep") == "prepare\n");
  CHECK(completions("han predict --data-f") == "--data-format\n");
  CHECK(completions("han help ab") == "ablate\n");
  for (const std::string& verb : kVerbs) {
    std::string offered = " " + completions("han " + verb + " -");
    offered.back() = ' ';  // the line break
    for (const std::string& flag : help_flags(verb)) {
      INFO(verb << " " << flag);
      CHECK(offered.find(" " + flag + " ") != std::string::npos);
    }
  }
  const RunResult fish = run(han_cmd("--completion fish"));
  CHECK(fish.exit_code == 2);
  CHECK(fish.err == "han: error: --completion takes one shell: bash or zsh (see han --help)\n");
  CHECK(run(han_cmd("--completion zsh")).out.rfind("autoload -U +X bashcompinit", 0) == 0);
}

TEST_CASE("cmake --install puts han, its man page and its completion in place", "[self_docs][install]") {
  TempDir tmp;
  const std::string build_dir = std::filesystem::path(han_binary()).parent_path().string();
  const RunResult install = run("cmake --install " + build_dir + " --prefix " + tmp.path.string());
  INFO(install.out << install.err);
  REQUIRE(install.exit_code == 0);
  const RunResult installed = run((tmp.path / "bin" / "han").string() + " --version");
  CHECK(installed.exit_code == 0);
  CHECK(installed.out == run(han_cmd("--version")).out);
  CHECK(slurp(tmp.path / "share" / "man" / "man1" / "han.1") == run(han_cmd("--man")).out);
  CHECK(slurp(tmp.path / "share" / "bash-completion" / "completions" / "han") == run(han_cmd("--completion bash")).out);
}
