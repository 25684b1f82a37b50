// The command line's manners with a new user: mistyped verbs, help for one verb, and
// errors that point to the verb's own help. Run through the binary, as a user does.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "support/interrupted_run.h"
#include "support/paths.h"
#include "support/run.h"

using namespace han::test;

TEST_CASE("a mistyped verb is named, with the closest verb suggested, exit 2", "[cli][manners]") {
  const RunResult r = run(han_cmd("trian --config x.json"));
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  REQUIRE(lines_of(r.err).size() == 1);
  CHECK(r.err.find("unknown command \"trian\" (did you mean \"train\"?)") != std::string::npos);
  CHECK(run(han_cmd("embd -o v.txt")).err.find("(did you mean \"embed\"?)") != std::string::npos);
}

TEST_CASE("an unknown verb asking for --help is still an unknown verb", "[cli][manners]") {
  const RunResult r = run(han_cmd("embedd --help"));
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err.find("unknown command \"embedd\"") != std::string::npos);
  CHECK(r.err.find("the commands are train, predict, eval, info, ablate, embed") != std::string::npos);
}

TEST_CASE("han help VERB prints that verb's help and runs nothing", "[cli][manners]") {
  for (const std::string& verb : std::vector<std::string>{"train", "predict", "eval", "ablate", "info", "embed"}) {
    const RunResult help = run(han_cmd("help " + verb), "some text that predict would classify\n");
    const RunResult own = run(han_cmd(verb + " --help"));
    INFO(verb);
    CHECK(help.exit_code == 0);
    CHECK(help.out == own.out);
    CHECK(help.out.find("Usage: han " + verb) != std::string::npos);
  }
  const RunResult all = run(han_cmd("help"));
  CHECK(all.exit_code == 0);
  CHECK(all.out == run(han_cmd("--help")).out);
  CHECK(run(han_cmd("help trian")).err.find("did you mean \"train\"") != std::string::npos);
}

TEST_CASE("an argument error inside a verb points to that verb's --help", "[cli][manners]") {
  const RunResult r = run(han_cmd("predict --no-such-flag"));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("(see han predict --help)") != std::string::npos);
}

TEST_CASE("a training checkpoint given as a model is named as one, with the resume command", "[cli][manners]") {
  TempDir dir;
  const std::string checkpoint = interrupted_run(dir.file("run"));
  for (const std::string& verb : {"predict -m " + checkpoint, "eval -m " + checkpoint + " --data " +
                                 source_path("data/dev.jsonl"), "info -m " + checkpoint}) {
    const RunResult r = run(han_cmd(verb), "a document\n");
    INFO(verb << "\n" << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    REQUIRE(lines_of(r.err).size() == 1);
    CHECK(r.err.find("this is a training checkpoint, not a model") != std::string::npos);
    CHECK(r.err.find("han train --resume " + dir.file("run")) != std::string::npos);
  }
}

TEST_CASE("config keys given as flags are answered with the --set that sets them", "[cli][manners]") {
  const std::string config = source_path("configs/quickstart.json");
  const RunResult spaced = run(han_cmd("train --config " + config + " --epochs 1"));
  CHECK(spaced.exit_code == 2);
  CHECK(spaced.err.find("--set trainer.epochs=1") != std::string::npos);
  const RunResult joined = run(han_cmd("train --config " + config + " --min-count=3"));
  CHECK(joined.exit_code == 2);
  CHECK(joined.err.find("--set tokenizer.min_count=3") != std::string::npos);
  // han embed takes --set too, and its own section comes first.
  const RunResult embed = run(han_cmd("embed -o v.txt --epochs 2"));
  CHECK(embed.exit_code == 2);
  CHECK(embed.err.find("--set embed.epochs=2 (see han embed --help)") != std::string::npos);
  const RunResult typo = run(han_cmd("embed -o v.txt --set embed.windw=3"));
  CHECK(typo.exit_code == 2);
  CHECK(typo.err == "han: error: --set: unknown key \"embed.windw\" (did you mean \"embed.window\"?)\n");
}

TEST_CASE("a short option takes its value after '=' too (-m=FILE)", "[cli][manners]") {
  TempDir dir;
  const RunResult r = run(han_cmd("info -m=" + dir.file("missing.han")));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find(dir.file("missing.han") + ": no such file") != std::string::npos);
  CHECK(r.err.find("=" + dir.file("missing.han")) == std::string::npos);
}
