// Sentence splitting: han's tokenizer (tokenizer.version 3, and 2 for reference) against
// ICU's sentence BreakIterator with the standard abbreviation suppressions (locale
// "en@ss=standard"), and plain ICU ("en").
//  1. Correctness on the table of cases (tests/text/sentence_cases.tsv): how many inputs each
//     splits exactly into the expected sentences.
//  2. Speed on a data file (every "text" of a .jsonl): han's whole tokenization (sentences
//     and words) against ICU's sentence breaks alone, the best of several passes.
// Usage: han_bench_sentences CASES.tsv DATA.jsonl [passes=3]. Prints a table and one JSON line.
// Built only when asked: scripts/bench_sentences.sh (needs libicu-dev).
#include <unicode/brkiter.h>
#include <unicode/locid.h>
#include <unicode/utext.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "han/text/dataset.h"
#include "han/text/tokenizer.h"

using Clock = std::chrono::steady_clock;

namespace {

struct Case {
  std::string text;
  std::vector<std::string> sentences;
};

std::vector<Case> read_cases(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open");
  std::vector<Case> out;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f(1);
    for (char c : line) {
      if (c == '\t') f.emplace_back();
      else f.back() += c;
    }
    for (std::size_t at; (at = f[0].find("\\n")) != std::string::npos;) f[0].replace(at, 2, "\n");
    out.push_back({f[0], {f.begin() + 1, f.end()}});
  }
  return out;
}

std::string trimmed(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\n\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\n\r") - b + 1);
}

han::TokenizedText tokenize(const std::string& text, int version) {
  han::TokenizerOptions o;
  o.version = version;
  return han::Tokenizer(o).tokenize(text);
}

// Right when the text splits into the expected sentences, each of which is one sentence.
bool han_right(const Case& c, int version) {
  han::TokenizedText expected;
  for (const std::string& s : c.sentences) {
    han::TokenizedText one = tokenize(s, version);
    if (one.size() != 1) return false;
    expected.push_back(one[0]);
  }
  return tokenize(c.text, version) == expected;
}

class IcuSplitter {
 public:
  explicit IcuSplitter(const char* locale) {
    UErrorCode status = U_ZERO_ERROR;
    it_.reset(icu::BreakIterator::createSentenceInstance(icu::Locale(locale), status));
    if (U_FAILURE(status)) throw std::runtime_error(std::string("ICU: ") + u_errorName(status));
  }
  // The byte offsets where sentences start, after the first (UTF-8 text, no copy).
  std::vector<std::int64_t> breaks(const std::string& text) {
    UErrorCode status = U_ZERO_ERROR;
    UText* ut = utext_openUTF8(nullptr, text.data(), static_cast<std::int64_t>(text.size()), &status);
    it_->setText(ut, status);
    std::vector<std::int64_t> out;
    for (std::int32_t b = it_->next(); b != icu::BreakIterator::DONE; b = it_->next()) out.push_back(b);
    utext_close(ut);
    return out;
  }
  std::vector<std::string> sentences(const std::string& text) {
    std::vector<std::string> out;
    std::int64_t start = 0;
    for (std::int64_t b : breaks(text)) {
      const std::string s = trimmed(text.substr(static_cast<std::size_t>(start), static_cast<std::size_t>(b - start)));
      if (!s.empty()) out.push_back(s);
      start = b;
    }
    return out;
  }

 private:
  std::unique_ptr<icu::BreakIterator> it_;
};

template <class F>
double best_seconds(int passes, F&& f) {
  double best = 1e300;
  for (int p = 0; p < passes; ++p) {
    const auto start = Clock::now();
    f();
    best = std::min(best, std::chrono::duration<double>(Clock::now() - start).count());
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) try {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s CASES.tsv DATA.jsonl [passes=3]\n", argv[0]);
    return 2;
  }
  const std::vector<Case> cases = read_cases(argv[1]);
  const int passes = argc > 3 ? std::stoi(argv[3]) : 3;
  IcuSplitter icu_ss("en@ss=standard"), icu_plain("en");
  int han3 = 0, han2 = 0, icu = 0, plain = 0;
  for (const Case& c : cases) {
    std::vector<std::string> want;
    for (const std::string& s : c.sentences) want.push_back(trimmed(s));
    const bool h3 = han_right(c, 3), h2 = han_right(c, 2);
    const std::vector<std::string> got = icu_ss.sentences(c.text);
    const bool i = got == want, p = icu_plain.sentences(c.text) == want;
    han3 += h3, han2 += h2, icu += i, plain += p;
    if (!h3 || !i || (argc > 4 && !h2)) {
      std::string shown;
      for (const std::string& s : got) shown += "[" + s + "] ";
      std::printf("han %-4s ICU %-4s %s\n      ICU: %s\n", h3 ? "ok" : "MISS", i ? "ok" : "MISS", c.text.c_str(),
                  shown.c_str());
    }
  }
  std::vector<std::string> docs;
  std::size_t bytes = 0;
  for (han::Example& e : han::read_examples(argv[2], han::DataFormat::jsonl, false)) {
    bytes += e.text.size();
    docs.push_back(std::move(e.text));
  }
  std::size_t han_sentences = 0, icu_sentences = 0;
  const double t_han3 = best_seconds(passes, [&] {
    han_sentences = 0;
    han::TokenizerOptions o;
    o.version = 3;
    const han::Tokenizer tok(o);
    for (const std::string& d : docs) han_sentences += tok.tokenize(d).size();
  });
  const double t_han2 = best_seconds(passes, [&] {
    han::TokenizerOptions o;
    o.version = 2;
    const han::Tokenizer tok2(o);
    for (const std::string& d : docs) tok2.tokenize(d);
  });
  const double t_icu = best_seconds(passes, [&] {
    icu_sentences = 0;
    for (const std::string& d : docs) icu_sentences += icu_ss.breaks(d).size();
  });
  const nlohmann::json j = {
      {"cases", cases.size()},
      {"right", {{"han_v3", han3}, {"han_v2", han2}, {"icu_en_ss_standard", icu}, {"icu_en", plain}}},
      {"data", argv[2]},
      {"documents", docs.size()},
      {"megabytes", bytes / 1e6},
      {"han_v3_tokenize_ms", t_han3 * 1e3},
      {"han_v2_tokenize_ms", t_han2 * 1e3},
      {"icu_sentences_only_ms", t_icu * 1e3},
      {"han_v3_sentences", han_sentences},
      {"icu_sentences", icu_sentences},
      {"han_v3_sentences_per_s", han_sentences / t_han3},
      {"icu_sentences_per_s", icu_sentences / t_icu}};
  std::printf("right on %zu cases: han v3 %d, han v2 %d, ICU en@ss=standard %d, ICU en %d\n", cases.size(), han3, han2,
              icu, plain);
  std::printf("%zu documents (%.1f MB): han v3 tokenizes (sentences and words) in %.0f ms, v2 in %.0f ms; "
              "ICU finds the sentence breaks alone in %.0f ms\n",
              docs.size(), bytes / 1e6, t_han3 * 1e3, t_han2 * 1e3, t_icu * 1e3);
  std::printf("%s\n", j.dump().c_str());
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "han_bench_sentences: %s\n", e.what());
  return 1;
}
