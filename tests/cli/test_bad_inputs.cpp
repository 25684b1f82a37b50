// Hostile and odd inputs, run through the real han binary as a user runs it. The cases
// live in tests/bad_inputs/cases.json (file, command, expected exit code, what the one
// stderr line must name); inputs too big or too derived to commit (a 100 MB line, a
// model cut at each section boundary, a model rewritten by han's own writer so that its
// checksum holds but its inside is wrong, a token cache edited and resealed, binary
// word2vec vectors) are generated here. Every failure must be exit 2
// (bad input) or 1 (I/O fault) with exactly one line "han: error: ...", never a signal.
#include <sys/wait.h>
#include <unistd.h>

#include <xxhash.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "han/infer/model_file.h"
#include "support/paths.h"
#include "support/run.h"

using namespace han::test;
using nlohmann::json;
namespace fs = std::filesystem;

// Under AddressSanitizer (HAN_SANITIZE) freed memory sits in a quarantine and every
// allocation carries redzones, so peak RSS says nothing about han: report, do not check.
#if defined(__SANITIZE_ADDRESS__)
#define HAN_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HAN_TEST_SANITIZED 1
#endif
#endif
#ifdef HAN_TEST_SANITIZED
constexpr bool kCheckMemory = false;
#else
constexpr bool kCheckMemory = true;
#endif

namespace {

void replace_all(std::string& s, const std::string& from, const std::string& to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
    s.replace(at, from.size(), to);
  }
}

struct Outcome {
  int exit_code = -1;
  bool signalled = false;
  std::string out, err;
  long max_rss_kb = -1;  // peak resident memory of the command (GNU time)
};

// Runs `script` (bash, so redirections like "> /dev/full" work) with `stdin_path` as
// stdin. The script goes through a file, so any quoting in it is left alone. Peak memory
// comes from GNU time (/usr/bin/time, which scripts/setup.sh installs): the command's own
// peak, where getrusage would give the largest child of the whole test so far.
Outcome run_script(const fs::path& dir, const std::string& script, const std::string& stdin_path) {
  write(dir / "cmd.sh", script + "\n");
  INFO("GNU time measures the peak memory: apt-get install time (scripts/setup.sh does)");
  REQUIRE(::access("/usr/bin/time", X_OK) == 0);
  const std::string shell = "/usr/bin/time -f %M -o " + (dir / "rss").string() + " bash " + (dir / "cmd.sh").string();
  const std::string full = shell + " < " + stdin_path + " > " + (dir / "out").string() + " 2> " + (dir / "err").string();
  const int status = std::system(full.c_str());
  Outcome o;
  o.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  // bash reports a child killed by a signal as 128 + n; /usr/bin/time adds its own line.
  o.signalled = WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) > 128);
  o.out = slurp(dir / "out");
  o.err = slurp(dir / "err");
  // GNU time may add "Command exited with non-zero status N" before the number.
  std::string last;
  for (const std::string& l : lines_of(slurp(dir / "rss"))) {
    if (l.find("terminated by signal") != std::string::npos) o.signalled = true;
    if (!l.empty()) last = l;
  }
  try {
    o.max_rss_kb = std::stol(last);
  } catch (...) {
  }
  return o;
}

// The tiny model every predict/eval case uses, trained once per test process in well
// under a second.
struct Model {
  fs::path dir = temp_folder("bad_inputs");
  std::string path = (dir / "run" / "model.han").string();
  Model() {
    const auto all = lines_of(slurp(source_path("data/train.jsonl")));
    std::string small;
    for (std::size_t i = 0; i < 300 && i < all.size(); ++i) small += all[i] + "\n";
    write(dir / "small.jsonl", small);
    const RunResult r =
        run(han_cmd("train --quiet --config " + source_path("configs/quickstart.json") + " --output " +
                    (dir / "run").string() + " --set data.train=" + (dir / "small.jsonl").string() +
                    " --set data.dev= --set data.test= --set trainer.epochs=1 --set tokenizer.min_count=2"
                    " --set model.embedding_dim=8 --set model.word_hidden=4 --set model.sentence_hidden=4"
                    " --set model.attention_dim=8"));
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
  }
  ~Model() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

Model& model() {
  static Model m;
  return m;
}

// Section boundaries of a format 3 model file (src/infer/model_file_v3.h): offsets where
// each part starts.
struct Layout {
  std::size_t header_start = 20, header_end = 0, count_end = 0, checksum = 0;
  std::vector<std::pair<std::size_t, std::size_t>> entries;  // each tensor's directory entry [start, end)
  std::vector<std::pair<std::size_t, std::size_t>> tensors;  // each non-empty tensor's data [start, end)
};

std::uint64_t le(const std::string& b, std::size_t at, int n) {
  std::uint64_t v = 0;
  for (int i = 0; i < n; ++i) v |= std::uint64_t(static_cast<unsigned char>(b[at + i])) << (8 * i);
  return v;
}

Layout layout_of(const std::string& b) {
  Layout l;
  l.header_end = l.header_start + le(b, 12, 8);
  l.count_end = l.header_end + 4;
  const auto count = le(b, l.header_end, 4);
  std::size_t at = l.count_end;
  for (std::uint64_t t = 0; t < count; ++t) {
    const std::size_t start = at;
    const auto name_len = le(b, at, 4);
    at += 4 + name_len;
    const auto rows = le(b, at, 4), cols = le(b, at + 4, 4), offset = le(b, at + 8, 8);
    at += 16;
    l.entries.emplace_back(start, at);
    if (rows * cols > 0) l.tensors.emplace_back(offset, offset + 4 * rows * cols);
  }
  const auto chunks = le(b, at + 4, 4);
  l.checksum = at + 8 + 8 * chunks;
  REQUIRE(l.tensors.back().second == b.size());
  return l;
}

// The trained model rewritten by han's own writer, so the checksum holds and only the
// inside is wrong: "header" is a JSON merge patch of the header (null removes a key);
// "drop_tensor", "transpose" and "extra_tensor" name a tensor to remove, give the shape
// (cols, rows), or add.
std::string edited_model(const json& g, const fs::path& tmp) {
  han::ModelFileContents m = han::parse_model(slurp(model().path), model().path);
  if (g.contains("header")) m.header.merge_patch(g.at("header"));
  auto& ts = m.tensors;
  const auto named = [&](const std::string& name) {
    const auto it = std::find_if(ts.begin(), ts.end(), [&](const han::NamedTensor& t) { return t.name == name; });
    REQUIRE(it != ts.end());
    return it;
  };
  if (g.contains("drop_tensor")) ts.erase(named(g.at("drop_tensor")));
  if (g.contains("transpose")) {
    han::Matrix& v = named(g.at("transpose"))->value;
    REQUIRE(v.rows() != v.cols());
    v.resize(v.cols(), v.rows());
  }
  if (g.contains("extra_tensor")) ts.push_back({g.at("extra_tensor"), han::Matrix::Zero(1, 1)});
  const fs::path p = tmp / g.value("name", std::string("model_edited.han"));
  write(p, han::serialize_model(m.header, ts));
  return p.string();
}

// word2vec's binary format, as cfg_crlf_bom.json's model (embedding_dim 4) reads it:
// "3 4\n", then per entry "word " + 4 float32s + "\n". "cut" drops that many bytes from
// the end; "nan" makes the first entry's second value NaN.
std::string word2vec_binary(const json& g, const fs::path& tmp) {
  std::string out = "3 4\n";
  const char* const words[] = {"great", "film", "dull"};
  for (const char* word : words) {
    float values[4] = {0.25f, -0.5f, 1, 2};
    if (g.value("nan", false) && word == words[0]) values[1] = std::numeric_limits<float>::quiet_NaN();
    out += std::string(word) + " ";
    out.append(reinterpret_cast<const char*>(values), sizeof values);
    out += "\n";
  }
  out.resize(out.size() - g.value("cut", 0));
  const fs::path p = tmp / g.at("name").get<std::string>();
  write(p, out);
  return p.string();
}

// Token caches (han/text/token_cache.h): magic, version u32, 0 u32, header length u64,
// JSON header, the arrays, XXH3-64 of all before it.
constexpr std::size_t kCachePreamble = 24;

// A valid cache han prepare makes from a config of this folder, once per config.
const std::string& valid_cache(const std::string& config, const fs::path& tmp) {
  static std::map<std::string, std::string> made;
  if (!made.count(config)) {
    const fs::path p = tmp / ("valid_" + config + ".cache");
    const RunResult r = run(han_cmd("prepare --quiet --config " + source_path("tests/bad_inputs/" + config) +
                                    " --cache " + p.string()));
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    made[config] = slurp(p);
  }
  return made.at(config);
}

// The cache with this header and data section, the checksum resealed (a crafted file).
std::string sealed_cache(const std::string& preamble, std::string header, const std::string& data) {
  header.append((8 - header.size() % 8) % 8, ' ');  // the data section starts 8-aligned
  const std::uint64_t length = header.size();
  std::string out = preamble.substr(0, kCachePreamble - 8);
  out.append(reinterpret_cast<const char*>(&length), 8);
  out += header + data;
  const std::uint64_t h = XXH3_64bits(out.data(), out.size());
  out.append(reinterpret_cast<const char*>(&h), 8);
  return out;
}

// A valid cache edited as "edit" says: "none", "empty", "cut" (half of it), "flip" (a data
// byte, not resealed), "version" (9), "magic", "word_id" (the first training word past the
// vocabulary), "documents" (a count past the file), "header_junk" (not JSON); the last
// three resealed, so the checks behind the checksum are reached.
std::string edited_cache(const json& g, const fs::path& tmp) {
  std::string b = valid_cache(g.at("config"), tmp);
  std::uint64_t length = 0;
  std::memcpy(&length, b.data() + kCachePreamble - 8, 8);
  std::string header = b.substr(kCachePreamble, length);
  std::string data = b.substr(kCachePreamble + length, b.size() - 8 - kCachePreamble - length);
  const std::string edit = g.at("edit");
  if (edit == "empty") b.clear();
  if (edit == "cut") b.resize(b.size() / 2);
  if (edit == "flip") b[kCachePreamble + length] ^= 0x01;
  if (edit == "version") b[8] = 9;
  if (edit == "magic") b[6] = 'X';
  json h = json::parse(header);
  if (edit == "word_id") {
    const std::uint64_t at = h["splits"]["train"]["arrays"]["words"][0];
    const std::uint32_t id = static_cast<std::uint32_t>(h["vocab"].size());
    std::memcpy(data.data() + at, &id, h["splits"]["train"]["narrow"].get<bool>() ? 2 : 4);
    b = sealed_cache(b, header, data);
  }
  if (edit == "documents") {
    h["splits"]["train"]["documents"] = std::uint64_t{1} << 40;
    b = sealed_cache(b, h.dump(), data);
  }
  if (edit == "header_junk") b = sealed_cache(b, std::string(header.size(), '#'), data);
  const fs::path p = tmp / ("cache_" + edit + ".cache");
  write(p, b);
  return p.string();
}

// Makes the input a case asks for; returns the files (one run each) and sets stdin.
std::vector<std::string> generate(const json& g, const fs::path& tmp, std::string& stdin_path) {
  const std::string kind = g.at("kind");
  const std::string name = g.value("name", "generated");
  std::vector<std::string> files;
  if (kind == "stdin_bytes") {
    const std::string hex = g.at("hex");
    std::string bytes;
    for (std::size_t i = 0; i + 1 < hex.size(); i += 2) bytes.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
    write(tmp / "stdin", bytes);
    stdin_path = (tmp / "stdin").string();
    return {""};
  }
  if (kind == "repeat") {
    std::string s = g.value("prefix", "");
    const std::string unit = g.at("unit"), close = g.value("close", "");
    const int count = g.at("count");
    s.reserve(s.size() + count * (unit.size() + close.size()) + 64);
    for (int i = 0; i < count; ++i) s += unit;
    s += g.value("middle", "");
    for (int i = 0; i < count; ++i) s += close;
    s += g.value("suffix", "");
    write(tmp / name, s);
    return {(tmp / name).string()};
  }
  if (kind == "many_labels") {
    const int n = g.at("labels");
    std::string tsv;
    for (int i = 0; i < n; ++i) tsv += "label" + std::to_string(i) + "\tsome text\n";
    write(tmp / "many_labels.tsv", tsv);
    write(tmp / name, R"({"data": {"train": "many_labels.tsv", "format": "tsv"}, "trainer": {"epochs": 1}})");
    return {(tmp / name).string()};
  }
  if (kind == "big_line") {
    const std::size_t bytes = std::size_t(g.at("mb").get<int>()) << 20;
    const std::string unit = "great movie and fun ";  // no sentence end: the scan covers it all
    std::ofstream out(tmp / name, std::ios::binary);
    out << g.value("prefix", "");
    std::string block;
    while (block.size() < (1u << 20)) block += unit;
    for (std::size_t done = 0; done < bytes; done += block.size()) out << block;
    out << g.value("suffix", "") << "\n";
    const std::string prefix = g.value("prefix", "");
    if (prefix.rfind("{", 0) == 0) out << "{\"label\": \"neg\", \"text\": \"short\"}\n";
    else if (!prefix.empty()) out << "neg\tshort\n";
    else if (g.value("stdin", false)) out << "short\n";
    out.close();
    if (g.value("stdin", false)) {
      stdin_path = (tmp / name).string();
      return {""};
    }
    return {(tmp / name).string()};
  }
  if (kind == "model_edited") return {edited_model(g, tmp)};
  if (kind == "word2vec_binary") return {word2vec_binary(g, tmp)};
  if (kind == "token_cache") return {edited_cache(g, tmp)};
  // The model variants start from the trained model's bytes.
  const std::string bytes = slurp(model().path);
  const Layout l = layout_of(bytes);
  auto cut = [&](std::size_t at, const std::string& tag) {
    const fs::path p = tmp / ("model_" + tag + ".han");
    write(p, bytes.substr(0, at));
    files.push_back(p.string());
  };
  if (kind == "model_truncated") {
    const std::string at = g.at("at");
    if (at == "magic") cut(4, "in_magic");
    if (at == "version") cut(10, "in_version");
    if (at == "header_length") cut(15, "in_header_length");
    if (at == "header") cut((l.header_start + l.header_end) / 2, "in_header");
    if (at == "tensor_count") cut(l.header_end + 2, "in_tensor_count");
    if (at == "each_tensor") {
      for (std::size_t t = 0; t < l.entries.size(); ++t) cut(l.entries[t].first + 2, "in_entry" + std::to_string(t));
      for (std::size_t t = 0; t < l.tensors.size(); ++t) {
        cut((l.tensors[t].first + l.tensors[t].second) / 2, "in_tensor" + std::to_string(t));
        cut(l.tensors[t].second - 1, "end_of_tensor" + std::to_string(t));
      }
    }
    if (at == "checksum") cut(l.checksum + 3, "in_checksum");
    if (at == "every_boundary") {
      cut(8, "after_magic");
      cut(12, "after_version");
      cut(20, "after_header_length");
      cut(l.header_end, "after_header");
      cut(l.count_end, "after_tensor_count");
      for (std::size_t t = 0; t < l.entries.size(); ++t) cut(l.entries[t].second, "after_entry" + std::to_string(t));
      cut(l.checksum + 8, "after_directory");
      for (std::size_t t = 0; t + 1 < l.tensors.size(); ++t) cut(l.tensors[t].second, "after_tensor" + std::to_string(t));
    }
    REQUIRE_FALSE(files.empty());
    return files;
  }
  std::string changed = bytes;
  if (kind == "model_flipped") {
    const std::size_t at = g.at("at") == "header" ? (l.header_start + l.header_end) / 2
                                                  : (l.tensors[0].first + l.tensors[0].second) / 2;
    changed[at] = static_cast<char>(changed[at] ^ 0x10);
  } else if (kind == "model_version") {
    changed[8] = static_cast<char>(g.at("version").get<int>());
  } else {
    FAIL("unknown generator " << kind);
  }
  const fs::path p = tmp / ("model_" + kind + ".han");
  write(p, changed);
  return {p.string()};
}

// A field that holds one string or a list of them.
std::vector<std::string> strings_of(const json& c, const char* key) {
  if (!c.contains(key)) return {};
  if (c.at(key).is_string()) return {c.at(key).get<std::string>()};
  return c.at(key).get<std::vector<std::string>>();
}

void check_case(const json& c, const fs::path& tmp) {
  const std::string name = c.at("name");
  INFO("case: " << name);
  std::string stdin_path = "/dev/null";
  std::vector<std::string> files{""};
  if (c.contains("generate")) files = generate(c.at("generate"), tmp, stdin_path);
  for (const std::string& file : files) {
    std::string cmd = c.at("cmd");
    replace_all(cmd, "{dir}", source_path("tests/bad_inputs"));
    replace_all(cmd, "{model}", model().path);
    replace_all(cmd, "{tmp}", tmp.string());
    replace_all(cmd, "{file}", file);
    INFO("command: han " << cmd);
    const Outcome o = run_script(tmp, han_binary() + " " + cmd, stdin_path);
    INFO("stderr: " << o.err.substr(0, 2000));
    CHECK_FALSE(o.signalled);
    CHECK(o.exit_code == c.at("exit").get<int>());
    CHECK(o.err.find("terminate called") == std::string::npos);
    CHECK(o.err.find("Sanitizer") == std::string::npos);
    if (c.at("exit").get<int>() != 0) {
      const auto errs = lines_of(o.err);
      CHECK(errs.size() == 1);
      if (errs.size() != 1) continue;
      CHECK(errs[0].rfind("han: error: ", 0) == 0);
      for (std::string want : c.value("stderr", std::vector<std::string>{})) {
        replace_all(want, "{file}", file);
        CHECK_THAT(errs[0], Catch::Contains(want));
      }
      // Unless the case says what was answered before the error, a failure prints nothing.
      const bool answers_first = c.contains("stdout_lines") || c.contains("stdout");
      if (cmd.find("> /dev/") == std::string::npos && !answers_first) CHECK(o.out.empty());
    }
    // A success may still have to warn (a damaged cache rebuilt, vectors that match nothing).
    if (c.at("exit").get<int>() == 0)
      for (const std::string& want : strings_of(c, "stderr")) CHECK_THAT(o.err, Catch::Contains(want));
    if (c.contains("stdout_lines")) CHECK(lines_of(o.out).size() == c.at("stdout_lines").get<std::size_t>());
    for (const std::string& want : strings_of(c, "stdout")) CHECK_THAT(o.out, Catch::Contains(want));
    for (const std::string& unwanted : strings_of(c, "stdout_lacks")) CHECK_THAT(o.out, !Catch::Contains(unwanted));
    if (c.contains("max_rss_mb")) {
      REQUIRE(o.max_rss_kb > 0);  // measured, not assumed
      INFO("peak RSS " << o.max_rss_kb / 1024 << " MB");
      WARN(name << ": peak RSS " << o.max_rss_kb / 1024 << " MB");
      if (kCheckMemory) CHECK(o.max_rss_kb / 1024 <= c.at("max_rss_mb").get<long>());
    }
  }
}

json manifest() { return json::parse(slurp(source_path("tests/bad_inputs/cases.json"))); }

bool is_big(const json& c) { return c.contains("generate") && c["generate"].value("kind", "") == "big_line"; }

}  // namespace

TEST_CASE("bad inputs: every case of tests/bad_inputs/cases.json", "[bad_inputs]") {
  const json m = manifest();
  REQUIRE(m.at("cases").size() >= 60);
  const fs::path tmp = temp_folder("bad_inputs_cases");
  for (const json& c : m.at("cases")) {
    if (!is_big(c)) check_case(c, tmp);
  }
  fs::remove_all(tmp);
}

TEST_CASE("bad inputs: 100 MB lines are truncated by the caps with bounded memory", "[bad_inputs][big]") {
  const json m = manifest();
  const fs::path tmp = temp_folder("bad_inputs_big");
  for (const json& c : m.at("cases")) {
    if (is_big(c)) {
      check_case(c, tmp);
      for (const auto& e : fs::directory_iterator(tmp)) {
        if (e.path().filename().string().rfind("big", 0) == 0) fs::remove(e.path());
      }
    }
  }
  fs::remove_all(tmp);
}

TEST_CASE("bad inputs: predict on a long stream keeps memory flat", "[bad_inputs][stream]") {
  const fs::path tmp = temp_folder("bad_inputs_stream");
  auto rss_for = [&](int lines) {
    {
      std::ofstream out(tmp / "in.txt", std::ios::binary);
      for (int i = 0; i < lines; ++i) out << "A wonderful film, line " << i << ". Great acting!\n";
    }
    const Outcome o = run_script(tmp, han_binary() + " predict --model " + model().path + " | wc -l", (tmp / "in.txt").string());
    INFO(o.err);
    REQUIRE(o.exit_code == 0);
    CHECK(std::stol(o.out) == lines);
    return o.max_rss_kb;
  };
  const long small = rss_for(1000);
  const long large = rss_for(100000);
  REQUIRE(small > 0);  // measured, not assumed
  REQUIRE(large > 0);
  WARN("peak RSS: 1000 lines " << small << " kB, 100000 lines " << large << " kB");
  if (kCheckMemory) CHECK(large <= small + 16 * 1024);
  fs::remove_all(tmp);
}
