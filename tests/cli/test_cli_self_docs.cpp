// What han says about itself: the version line, the man page and shell completion are
// built from the parser's own options, so every verb and flag in --help appears in them;
// `cmake --install` puts all three in place.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>

#include "support/cli_fixture.h"
#include "support/paths.h"
#include "support/run.h"

using namespace han::test;

namespace {

const std::vector<std::string> kVerbs = {"train", "predict", "eval", "info", "ablate", "embed", "prepare", "serve"};

// The long flags a verb's --help lists.
std::set<std::string> help_flags(const std::string& verb) {
  const std::string help = run(han_cmd(verb + " --help")).out;
  std::set<std::string> flags;
  const std::regex flag("--[a-z][a-z-]*");
  for (auto it = std::sregex_iterator(help.begin(), help.end(), flag); it != std::sregex_iterator(); ++it)
    flags.insert(it->str());
  return flags;
}

// What bash completion offers for the words typed so far (the last one being completed),
// in the folder `cwd`. Bash splits words at '=': "--format=j" is typed as "--format = j".
std::string completions(const std::string& words, const std::string& cwd = ".") {
  const std::string script = (std::filesystem::temp_directory_path() / ("han_completion_" + std::to_string(::getpid()))).string();
  REQUIRE(run(han_cmd("--completion bash") + " > " + script).exit_code == 0);
  const RunResult r = run("source " + script + "; cd " + cwd + "; COMP_WORDS=(" + words + "); " +
                          "COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _han; echo \"${COMPREPLY[*]}\"");
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
                                           "GEMM (libxsmm|eigen), "
                                           "(no MPI|MPI)\\)\n")));
  // The build's own MPI setting, not a fixed text (CMakeLists.txt defines HAN_MPI for this file
  // in an MPI build, as for test_cli_mpi.cpp).
#ifdef HAN_MPI
  CHECK(r.out.find(", MPI)\n") != std::string::npos);
#else
  CHECK(r.out.find(", no MPI)\n") != std::string::npos);
#endif
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
  const RunResult tcsh = run(han_cmd("--completion tcsh"));
  CHECK(tcsh.exit_code == 2);
  CHECK(tcsh.err == "han: error: --completion takes one shell: bash, fish or zsh (see han --help)\n");
  CHECK(run(han_cmd("--completion zsh")).out.rfind("autoload -U +X bashcompinit", 0) == 0);
}

TEST_CASE("bash completion offers option values: formats, log levels, config keys, files and folders", "[self_docs]") {
  CHECK(completions("han predict --format \"\"") == "tsv json html\n");
  CHECK(completions("han predict -f j") == "json\n");
  CHECK(completions("han predict --format = j") == "json\n");
  CHECK(completions("han predict --data-format \"\"") == "lines files jsonl fasttext tsv\n");
  CHECK(completions("han predict --on-error s") == "stop skip\n");
  CHECK(completions("han eval --format \"\"") == "text json\n");
  CHECK(completions("han eval --data-format fa") == "fasttext\n");
  CHECK(completions("han train --log-level w") == "warn\n");
  CHECK(completions("han ablate --masks \"\"") == "none renorm additive\n");
  CHECK(completions("han ablate --with") == "--with-member\n");
  CHECK(completions("han --completion \"\"") == "bash fish zsh\n");
  CHECK(completions("han -") == "--help --version -V -h --man --completion\n");
  // A number has nothing to offer (not the files of the folder).
  CHECK(completions("han predict -k \"\"") == "\n");
  // The deprecated --input still works but is not offered.
  CHECK(completions("han predict --in") == "\n");
  CHECK(completions("han predict -").find(" -i ") == std::string::npos);
  // Config keys after --set, from the binary's own table (what han help config lists), and
  // the values of a choice key after its '='.
  const std::string help = run(han_cmd("help config")).out;
  const std::regex key_line("\n([a-z_]+\\.[a-z_0-9]+) = ");
  std::string keys;
  for (auto it = std::sregex_iterator(help.begin(), help.end(), key_line); it != std::sregex_iterator(); ++it)
    keys += (keys.empty() ? "" : " ") + (*it)[1].str() + "=";
  CHECK(keys.size() > 300);
  CHECK(completions("han train --set \"\"") == keys + "\n");
  CHECK(completions("han train -s trainer.epo") == "trainer.epochs=\n");
  CHECK(completions("han ablate --set model.mask = r") == "renorm\n");
  CHECK(completions("han train --set model.linear_member =") == "true false\n");
  CHECK(completions("han help config trainer.ep") == "trainer.epochs\n");
  CHECK(completions("han help \"\"").find(" config") != std::string::npos);
  // FILE options offer files and folders, DIR options folders only.
  TempDir tmp;
  tmp.write("model.han", "x");
  std::filesystem::create_directories(tmp.path / "runs");
  const std::string files = completions("han predict -m \"\"", tmp.path.string());  // in the folder's order
  CHECK((files == "model.han runs\n" || files == "runs model.han\n"));
  CHECK(completions("han train -o \"\"", tmp.path.string()) == "runs\n");
  CHECK(completions("han train --resume r", tmp.path.string()) == "runs\n");
  CHECK(completions("han predict -m model.han m", tmp.path.string()) == "model.han\n");
}

TEST_CASE("fish completion offers the verbs, their flags and the same values", "[self_docs]") {
  const RunResult fish = run(han_cmd("--completion fish"));
  REQUIRE(fish.exit_code == 0);
  CHECK(fish.out.find("complete -c han -n __fish_use_subcommand -a predict ") != std::string::npos);
  CHECK(fish.out.find(" -s f -l format -x -a 'tsv json html' ") != std::string::npos);
  CHECK(fish.out.find(" -l data-format -x -a 'lines files jsonl fasttext tsv' ") != std::string::npos);
  CHECK(fish.out.find(" -l log-level -x -a 'trace debug info warn error off' ") != std::string::npos);
  CHECK(fish.out.find(" -s s -l set -x -a 'data.train= ") != std::string::npos);
  CHECK(fish.out.find(" -s m -l model -r -F ") != std::string::npos);
  CHECK(fish.out.find(" -s o -l output -x -a '(__fish_complete_directories)' ") != std::string::npos);
  CHECK(fish.out.find(" -l with-member ") != std::string::npos);
  // predict's deprecated --input works but is not offered (embed's own --input is).
  CHECK(fish.out.find("from predict; and not __fish_seen_subcommand_from help' -s i -l input") == std::string::npos);
  CHECK(fish.out.find("from embed; and not __fish_seen_subcommand_from help' -s i -l input") != std::string::npos);
  if (run("command -v fish").exit_code != 0) {
    WARN("fish is not installed: the fish script's syntax and answers are not checked (apt-get install fish)");
    return;
  }
  TempDir tmp;
  const std::string script = tmp.write("han.fish", fish.out);
  CHECK(run("fish -n " + script).exit_code == 0);
  // fish's own completion engine, asked what it offers (the binary need not be on PATH).
  const auto offered = [&](const std::string& line) {
    return run("fish -c \"source " + script + "; complete -C \\\"" + line + "\\\"\" | cut -f1 | sort | paste -sd \" \"").out;
  };
  CHECK(offered("han predict --format ") == "html json tsv\n");
  CHECK(offered("han pre") == "predict prepare\n");
  CHECK(offered("han train --set trainer.epo") == "trainer.epochs=\n");
  CHECK(offered("han ablate --with") == "--with-member\n");
}

TEST_CASE("cmake --install puts han, its man page and its bash and fish completion in place", "[self_docs][install]") {
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
  CHECK(slurp(tmp.path / "share" / "fish" / "vendor_completions.d" / "han.fish") == run(han_cmd("--completion fish")).out);
  // han serve runs han-serve, installed where han looks for it: its error, not han's.
  const std::string not_a_model = tmp.path / "share" / "man" / "man1" / "han.1";
  const RunResult serve = run((tmp.path / "bin" / "han").string() + " serve --port 0 --model " + not_a_model);
  CHECK(serve.exit_code == 2);
  CHECK(serve.err == "han: error: " + not_a_model + ": not a han model file\n");
  // The MPI module, where the installed han looks for it: <prefix>/<libdir>/han.
  if (run(han_cmd("--version")).out.find(", MPI)") != std::string::npos) {
    std::vector<std::filesystem::path> modules;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(tmp.path))
      if (entry.path().filename() == "libhan_mpi.so") modules.push_back(entry.path());
    REQUIRE(modules.size() == 1);
    CHECK(modules[0].parent_path().filename() == "han");
    CHECK(modules[0].parent_path().parent_path().string().rfind((tmp.path / "lib").string(), 0) == 0);
  }
}

TEST_CASE("han help config lists every key a run's config.json holds, from the parser's own table", "[cli]") {
  const han::test::CliFixture& fixture = han::test::cli_fixture();
  std::ifstream in(fixture.run_dir / "config.json");
  const nlohmann::json written = nlohmann::json::parse(in);
  const RunResult all = run(han_cmd("help config"));
  REQUIRE(all.exit_code == 0);
  std::size_t keys = 0;
  for (const auto& section : written.items()) {
    for (const auto& key : section.value().items()) {
      const std::string path = section.key() + "." + key.key();
      INFO(path);
      CHECK(all.out.find("\n" + path + " = ") != std::string::npos);
      ++keys;
    }
  }
  CHECK(keys > 30);
  // One key in full, a section, a name that two sections share, and a typo.
  const RunResult one = run(han_cmd("help config trainer.epochs"));
  CHECK(one.exit_code == 0);
  CHECK(one.out.find("  default  10\n") != std::string::npos);
  CHECK(one.out.find("integer 1..100000") != std::string::npos);
  CHECK(one.out.find("--set trainer.epochs=10") != std::string::npos);
  const RunResult stored = run(han_cmd("help config model.linear_member"));
  CHECK(stored.out.find("lacks this key was made with false") != std::string::npos);
  const RunResult section = run(han_cmd("help config batching"));
  CHECK(section.exit_code == 0);
  CHECK(section.out.find("batching.batch_size = 64") != std::string::npos);
  CHECK(section.out.find("model.") == std::string::npos);
  const RunResult shared = run(han_cmd("help config epochs"));
  CHECK(shared.exit_code == 2);
  CHECK(shared.err == "han: error: \"epochs\" is a key of more than one section: say trainer.epochs or embed.epochs\n");
  const RunResult typo = run(han_cmd("help config trainer.epoch"));
  CHECK(typo.exit_code == 2);
  CHECK(typo.out.empty());
  CHECK(typo.err.find("did you mean \"trainer.epochs\"") != std::string::npos);
}

TEST_CASE("the man page holds the configuration keys", "[self_docs]") {
  const RunResult man = run(han_cmd("--man"));
  REQUIRE(man.exit_code == 0);
  CHECK(man.out.find(".SH CONFIGURATION\n") != std::string::npos);
  CHECK(man.out.find(".B trainer.epochs\ninteger 1..100000; default 10. training epochs\n") != std::string::npos);
  CHECK(man.out.find("README.md of the han sources") == std::string::npos);
}

TEST_CASE("han --version, the package and CHANGELOG.md's newest entry name one version", "[self_docs]") {
  const RunResult v = run(han_cmd("--version"));
  std::smatch m;
  REQUIRE(std::regex_search(v.out, m, std::regex("^han ([0-9]+\\.[0-9]+\\.[0-9]+) ")));
  const std::string version = m[1];
  std::ifstream changelog(han::test::source_path("CHANGELOG.md"));
  REQUIRE(changelog.good());
  std::string line;
  // The newest released entry; changes not yet released sit above it under [Unreleased].
  while (std::getline(changelog, line) && (line.rfind("## [", 0) != 0 || line == "## [Unreleased]")) {
  }
  CHECK(line.rfind("## [" + version + "]", 0) == 0);
  // The package takes its version from the same CMake project() line as the binary.
  std::ifstream cmake(han::test::source_path("CMakeLists.txt"));
  const std::string lists((std::istreambuf_iterator<char>(cmake)), std::istreambuf_iterator<char>());
  CHECK(lists.find("project(han VERSION " + version + " ") != std::string::npos);
  CHECK(lists.find("set(CPACK_PACKAGE_VERSION") == std::string::npos);  // no second version
}

TEST_CASE("docs/configuration.md's key table is what han help config --markdown prints", "[self_docs]") {
  std::ifstream in(han::test::source_path("docs/configuration.md"));
  const std::string page((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string begin = "<!-- BEGIN generated by: han help config --markdown -->\n";
  const std::string end = "<!-- END generated -->\n";
  const std::size_t b = page.find(begin), e = page.find(end);
  REQUIRE(b != std::string::npos);
  REQUIRE(e != std::string::npos);
  const RunResult table = run(han_cmd("help config --markdown"));
  REQUIRE(table.exit_code == 0);
  INFO("regenerate the table with: build/han help config --markdown");
  CHECK(page.substr(b + begin.size(), e - b - begin.size()) == table.out);
}

TEST_CASE("the man page's exit status says what docs/commands.md's exit codes say", "[self_docs]") {
  const RunResult man = run(han_cmd("--man"));
  REQUIRE(man.exit_code == 0);
  std::ifstream in(han::test::source_path("docs/commands.md"));
  const std::string page((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const char* meaning : {"bad usage, config or input", "any other failure: I/O, a diverging run"}) {
    INFO(meaning);
    CHECK(page.find(meaning) != std::string::npos);
    CHECK(man.out.find(meaning) != std::string::npos);
  }
}

TEST_CASE("the man page says each description once and points at the guides where they are installed", "[self_docs]") {
  const RunResult man = run(han_cmd("--man"));
  REQUIRE(man.exit_code == 0);
  const auto count = [&](const std::string& text) {
    std::size_t n = 0;
    for (std::size_t at = man.out.find(text); at != std::string::npos; at = man.out.find(text, at + 1)) ++n;
    return n;
  };
  CHECK(count("document classification with Hierarchical Attention Networks") == 1);  // NAME, not DESCRIPTION again
  for (const std::string& verb : kVerbs) {
    const std::string help = run(han_cmd(verb + " --help")).out;
    const std::string description = help.substr(0, help.find('\n'));
    INFO(verb << ": " << description);
    CHECK(count(description + "\n") == 1);
  }
  // Installed by cmake --install under its prefix, and by the package under /usr.
  CHECK(man.out.find("/usr/share/doc/han for the Debian package, /usr/local/share/doc/han for cmake") != std::string::npos);
  CHECK(man.out.find("fish") != std::string::npos);
}
