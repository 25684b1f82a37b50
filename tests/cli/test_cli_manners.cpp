// The command line's manners with a new user: mistyped verbs, help for one verb, and
// errors that point to the verb's own help. Run through the binary, as a user does.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "support/cli_fixture.h"
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

TEST_CASE("a wrong option value names the option, its values and the closest one", "[cli][manners]") {
  // The deprecated spelling is named with the new one (CLI11 names a hidden option "").
  const RunResult input = run(han_cmd("predict -m model.han --input docs/a.txt"));
  CHECK(input.exit_code == 2);
  CHECK(input.out.empty());
  CHECK(input.err == "han: error: --data-format (-i, --input): must be one of \"lines\", \"files\", \"jsonl\", \"fasttext\", \"tsv\", got "
                     "\"docs/a.txt\" (see han predict --help)\n");
  CHECK(run(han_cmd("predict -m model.han -i jsnl")).err.find("--data-format (-i, --input): ") != std::string::npos);
  const RunResult format = run(han_cmd("predict -m model.han --format jsn"));
  CHECK(format.exit_code == 2);
  CHECK(format.err == "han: error: --format: must be one of \"tsv\", \"json\", \"html\", got \"jsn\" (did you mean "
                      "\"json\"?) (see han predict --help)\n");
  const RunResult data_format = run(han_cmd("predict -m model.han --data-format=line"));
  CHECK(data_format.err.find("--data-format: must be one of \"lines\", \"files\", \"jsonl\", \"fasttext\", \"tsv\", got \"line\" (did you mean "
                             "\"lines\"?)") != std::string::npos);
  // eval --format still takes a data format (the old spelling) but names only its own values.
  const RunResult eval = run(han_cmd("eval -m model.han -d data.jsonl --format yaml"));
  CHECK(eval.exit_code == 2);
  CHECK(eval.err == "han: error: --format: must be one of \"text\", \"json\", got \"yaml\" (see han eval --help)\n");
  const RunResult level = run(han_cmd("train data.jsonl --log-level verbose"));
  CHECK(level.exit_code == 2);
  CHECK(level.err.find("han: error: --log-level: must be one of \"trace\", \"debug\", \"info\", \"warn\", \"error\", "
                       "\"off\", got \"verbose\"") != std::string::npos);
  // Numbers: out of range, not a number, or no value at all, in the words config keys use.
  CHECK(run(han_cmd("predict -m model.han --threshold 1.5")).err ==
        "han: error: --threshold: must be between 0 and 1, got \"1.5\" (see han predict --help)\n");
  CHECK(run(han_cmd("predict -m model.han -k abc")).err ==
        "han: error: --top-k: expected a number, got \"abc\" (see han predict --help)\n");
  CHECK(run(han_cmd("predict -m model.han --format")).err ==
        "han: error: --format: needs a value: one of tsv, json, html (see han predict --help)\n");
  CHECK(run(han_cmd("predict -m model.han -i")).err ==
        "han: error: --data-format (-i, --input): needs a value: one of lines, files, jsonl, fasttext, tsv (see han predict --help)\n");
  CHECK(run(han_cmd("predict -m")).err == "han: error: --model: needs a value (FILE|DIR) (see han predict --help)\n");
  const RunResult masks = run(han_cmd("ablate -c x.json --masks renorm,addtive"));
  CHECK(masks.err.find("--masks: must be one of \"none\", \"renorm\", \"additive\", got \"addtive\" (did you mean "
                       "\"additive\"?)") != std::string::npos);
}

TEST_CASE("an unknown option before the verb is named as one, -V is --version, han alone names the commands",
          "[cli][manners]") {
  const RunResult bogus = run(han_cmd("--bogus"));
  CHECK(bogus.exit_code == 2);
  CHECK(bogus.out.empty());
  CHECK(bogus.err == "han: error: unknown option --bogus (see han --help)\n");
  CHECK(run(han_cmd("--bogus train x.jsonl")).err == "han: error: unknown option --bogus (see han --help)\n");
  CHECK(run(han_cmd("--verison")).err == "han: error: unknown option --verison; did you mean --version? (see han --help)\n");
  CHECK(run(han_cmd("-Z")).err == "han: error: unknown option -Z (see han --help)\n");
  CHECK(run(han_cmd("--completoin bash")).err ==
        "han: error: unknown option --completoin; did you mean --completion? (see han --help)\n");
  const RunResult version = run(han_cmd("--version"));
  CHECK(version.exit_code == 0);
  const RunResult v = run(han_cmd("-V"));
  CHECK(v.exit_code == 0);
  CHECK(v.out == version.out);
  const RunResult help = run(han_cmd("help"));
  CHECK(help.exit_code == 0);
  CHECK(help.out.find("-V,--version") != std::string::npos);
  const RunResult alone = run(han_cmd(""));
  CHECK(alone.exit_code == 2);
  CHECK(alone.out.empty());
  CHECK(alone.err == "han: error: no command given; the commands are train, predict, eval, info, ablate, embed, prepare, serve "
                     "(see han --help)\n");
}

TEST_CASE("a mistyped option after a verb is named, with the closest option suggested", "[cli][manners]") {
  // Named before anything else is checked (predict's --model is missing too).
  const RunResult topk = run(han_cmd("predict --topk 2"));
  CHECK(topk.exit_code == 2);
  CHECK(topk.out.empty());
  CHECK(topk.err == "han: error: unknown option --topk; did you mean --top-k? (see han predict --help)\n");
  CHECK(run(han_cmd("predict -m model.han --explian")).err ==
        "han: error: unknown option --explian; did you mean --explain? (see han predict --help)\n");
  CHECK(run(han_cmd("eval -m model.han --thresold=0.5")).err ==
        "han: error: unknown option --thresold; did you mean --threshold? (see han eval --help)\n");
  CHECK(run(han_cmd("info -m model.han --jsno")).err ==
        "han: error: unknown option --jsno; did you mean --json? (see han info --help)\n");
  // Nothing close: the option alone. A deprecated spelling is never suggested.
  CHECK(run(han_cmd("predict -m model.han --zzzzzz")).err == "han: error: unknown option --zzzzzz (see han predict --help)\n");
  CHECK(run(han_cmd("predict -m model.han --inptu lines")).err.find("--input") == std::string::npos);
  // Short flags: -qZ is -q -Z; values that start with '-' are no options.
  CHECK(run(han_cmd("predict -m model.han -qZ")).err == "han: error: unknown option -Z (see han predict --help)\n");
  const RunResult negative = run(han_cmd("predict -m model.han --threshold -0.5"));
  CHECK(negative.err.find("unknown option") == std::string::npos);
  CHECK(negative.err.find("--threshold") != std::string::npos);
  // A config key given as a flag gets its --set rather than a did-you-mean.
  CHECK(run(han_cmd("train x.jsonl --epochs 3")).err ==
        "han: error: unknown option --epochs; config keys are set with --set, as in --set trainer.epochs=3 (see han "
        "train --help)\n");
}

TEST_CASE("predict with stdin on a terminal says it reads documents from it until Ctrl-D", "[cli][manners]") {
  const CliFixture& f = cli_fixture();
  TempDir dir;
  // script(1) gives han a terminal as stdin; the typed text ends with Ctrl-D (EOT) on a line of its own.
  const auto on_terminal = [&](const std::string& args) {
    const std::string err = dir.file("err");
    const RunResult r = run("script -qec \"" + han_binary() + " predict -m " + f.model + args + " 2> " + err +
                                "\" /dev/null",
                            "a wonderful film\n\x04");
    return std::make_pair(r, slurp(err));
  };
  const auto [typed, typed_err] = on_terminal("");
  INFO(typed.out << typed_err);
  CHECK(typed.exit_code == 0);
  CHECK(typed_err == "han: reading documents from stdin (the terminal), one per line; end with Ctrl-D\n");
  CHECK((typed.out.find("pos\t") != std::string::npos || typed.out.find("neg\t") != std::string::npos));
  CHECK(on_terminal(" --quiet").second.empty());
  CHECK(on_terminal(" --data-format jsonl").second.find("reading JSON records from stdin") != std::string::npos);
  // Not when stdin is a pipe or a file.
  const RunResult piped = run(han_cmd("predict -m " + f.model), "a wonderful film\n");
  CHECK(piped.exit_code == 0);
  CHECK(piped.err.empty());
  const RunResult file = run(han_cmd("predict -m " + f.model + " < " + dir.write("docs.txt", "a dull film\n")));
  CHECK(file.exit_code == 0);
  CHECK(file.err.find("reading") == std::string::npos);
}
