#include "han/text/tokenizer.h"

#include <cstddef>
#include <cstdint>
#include <algorithm>
#include <iterator>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "han/text/char_class.h"
#include "han/text/unicode.h"

namespace han {

TokenizerOptions tokenizer_options(const TokenizerConfig& cfg) {
  TokenizerOptions o;
  o.lowercase = cfg.lowercase;
  o.max_sentences = cfg.max_sentences;
  o.max_words = cfg.max_words;
  o.version = cfg.version;
  return o;
}

namespace {

using C = CharClass;
constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

// Non-ASCII text is normalised in pieces of about this many bytes, cut where that changes
// nothing (unicode::safe_cut), so the buffers stay small whatever the input.
constexpr std::size_t kPieceBytes = 256;

bool is_space_or_break(CharClass c) {
  return c == C::space || c == C::line_feed || c == C::carriage_return || c == C::line_break;
}

// Dropped inside symbols too, so "❤️" and "❤" are one token.
bool is_variation_selector(char32_t c) {
  return (c >= 0xFE00 && c <= 0xFE0F) || (c >= 0xE0100 && c <= 0xE01EF);
}

// ASCII bytes where the skip over the rest of a full sentence must stop.
struct SentenceStops {
  bool stop[128];
};

SentenceStops make_sentence_stops() {
  SentenceStops t{};
  for (unsigned char b : {'.', '!', '?', '\n', '\r'}) t.stop[b] = true;
  return t;
}

const SentenceStops kStops = make_sentence_stops();

// ---------------------------------------------------------------------------
// Version 3: where a sentence ends after '.', '!' or '?' followed by whitespace, read from
// the raw text around it (so the caps, which drop words, never change the answer).

// What the period at a position ends, by the ASCII word just before it.
enum class BeforePeriod {
  word,         // an ordinary word or number: the period ends the sentence
  never_ends,   // a title or e.g./i.e., an initial (J.), an upper-case initialism (U.S.)
  may_end,      // etc., Inc., a.m., No., a month, an ellipsis: it ends only before a capital
};

// The first word after the whitespace (opening quotes and brackets skipped).
enum class NextWord { end, upper, lower, digit, other };

template <std::size_t N>
bool in_list(std::string_view word, const std::string_view (&list)[N]) {
  for (std::string_view w : list)
    if (w == word) return true;
  return false;
}

bool is_ascii_letter(unsigned char c) { return (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; }
bool is_ascii_upper(unsigned char c) { return c >= 'A' && c <= 'Z'; }

// Titles and Latin abbreviations that precede what they belong to: never a sentence end.
constexpr std::string_view kNeverEnds[] = {
    "mr", "mrs", "ms", "dr", "prof", "st", "vs", "e.g", "i.e", "cf", "messrs", "mt", "rev", "gen", "sgt", "capt", "lt", "col"};
// Abbreviations that may end a sentence: they do when a capital follows.
constexpr std::string_view kMayEnd[] = {
    "etc", "inc", "ltd", "co", "corp", "jr", "sr", "bros", "no", "nos", "fig", "figs", "vol", "vols", "p", "pp", "approx", "ph.d",
    "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec"};

// Runs of letters and periods longer than this are words, never abbreviations.
constexpr std::size_t kMaxAbbreviationRun = 64;

// Where the run of ASCII letters and periods that ends at `pos` starts (at most
// kMaxAbbreviationRun + 1 back: a longer run is a word).
std::size_t run_start(const unsigned char* s, std::size_t pos) {
  std::size_t b = pos;
  while (b > 0 && pos - b <= kMaxAbbreviationRun && (is_ascii_letter(s[b - 1]) || s[b - 1] == '.')) --b;
  return b;
}

// The run s[b, pos) of ASCII letters and periods before a period, as a word.
BeforePeriod classify_run(const unsigned char* s, std::size_t b, std::size_t pos) {
  while (b < pos && s[b] == '.') ++b;  // "..Mr": the ellipsis before it is not part of the word
  std::string word;
  bool upper = true, dotted = true;  // all capitals; single letters between periods ("u.s")
  for (std::size_t k = b; k < pos; ++k) {
    const unsigned char c = s[k];
    word.push_back(static_cast<char>(c == '.' ? c : c | 0x20));
    if (c != '.' && !is_ascii_upper(c)) upper = false;
    const bool letter_slot = (k - b) % 2 == 0;
    if (letter_slot != (c != '.')) dotted = false;
  }
  if (word.empty()) return BeforePeriod::may_end;
  if (in_list(word, kNeverEnds)) return BeforePeriod::never_ends;
  if (in_list(word, kMayEnd)) return BeforePeriod::may_end;
  if (dotted && upper) return BeforePeriod::never_ends;          // an initial (J.) or initialism (U.S.)
  if (dotted && word.size() >= 3) return BeforePeriod::may_end;  // a.m., p.m.
  return BeforePeriod::word;
}

// What the period at `pos` of normalised text `s` follows: the run of ASCII letters and
// periods before it, read as a word (it must start the text or follow something that is
// not a letter or digit).
BeforePeriod before_period(const unsigned char* s, std::size_t pos) {
  const std::size_t b = run_start(s, pos);
  if (b == pos) return BeforePeriod::word;
  if (s[pos - 1] == '.') return BeforePeriod::may_end;  // the last period of an ellipsis
  if (pos - b > kMaxAbbreviationRun) return BeforePeriod::word;
  if (b > 0 && (s[b - 1] >= 0x80 || (s[b - 1] >= '0' && s[b - 1] <= '9'))) return BeforePeriod::word;
  return classify_run(s, b, pos);
}

// A code point as the tokenizer sees it: the first of its normalised form.
char32_t normalised(char32_t cp) { return unicode::normalization_stable(cp) ? cp : unicode::first_normalized(cp); }

bool is_ascii_closer(char32_t c) { return c == '"' || c == '\'' || c == ')' || c == ']' || c == '}'; }
// ' " ) ] } ’ ” » › 」 』
bool is_closer(char32_t c) {
  return is_ascii_closer(c) || c == 0x2019 || c == 0x201D || c == 0x00BB || c == 0x203A || c == 0x300D || c == 0x300F;
}
bool is_ascii_opener(char32_t c) { return c == '"' || c == '\'' || c == '(' || c == '[' || c == '{'; }

// Closing quotes and brackets: a sentence that ends inside them ends after them. The
// length of the one at j, or 0.
std::size_t closer_length(const unsigned char* s, std::size_t n, std::size_t j) {
  if (s[j] < 0x80) return is_ascii_closer(s[j]) ? 1 : 0;
  char32_t cp = 0;
  const std::size_t len = unicode::decode_utf8(s + j, n - j, cp);
  if (len == 0) return 0;
  return is_closer(normalised(cp)) ? len : 0;
}

std::size_t skip_closers(const unsigned char* s, std::size_t n, std::size_t j) {
  while (j < n) {
    const std::size_t len = closer_length(s, n, j);
    if (len == 0) break;
    j += len;
  }
  return j;
}

// What a (normalised) code point says of the next word; nothing for one to skip (spaces,
// opening quotes and brackets).
std::optional<NextWord> next_word_at(char32_t cp) {
  if (cp < 0x80) {
    if (cp == '\n' || cp == '\r') return NextWord::end;
    if (cp == ' ' || cp == '\t' || cp == '\f' || cp == '\v' || is_ascii_opener(cp)) return std::nullopt;
    if (cp >= '0' && cp <= '9') return NextWord::digit;
    if (is_ascii_upper(static_cast<unsigned char>(cp))) return NextWord::upper;
    if (is_ascii_letter(static_cast<unsigned char>(cp))) return NextWord::lower;
    return NextWord::other;
  }
  const CharClass cls = char_class(cp, 2);
  if (cls == C::line_break) return NextWord::end;
  if (cls == C::space || cls == C::ignored || cp == 0x201C || cp == 0x2018 || cp == 0x00AB || cp == 0x2039 ||
      cp == 0x00BF || cp == 0x00A1)
    return std::nullopt;
  if (is_cased_letter(cp)) return to_lower(cp, 2) != cp ? NextWord::upper : NextWord::lower;
  return NextWord::other;
}

// The first word from byte j on.
NextWord next_word(const unsigned char* s, std::size_t n, std::size_t j) {
  while (j < n) {
    char32_t cp = s[j];
    std::size_t len = 1;
    if (cp >= 0x80) {
      len = unicode::decode_utf8(s + j, n - j, cp);
      if (len == 0) return NextWord::other;
      cp = normalised(cp);
    }
    if (const std::optional<NextWord> w = next_word_at(cp)) return *w;
    j += len;
  }
  return NextWord::end;
}

// Whether terminator `t` ends its sentence, given what precedes a period and what follows
// (after closing quotes and brackets when `closed`, and whitespace).
bool ends_sentence(char32_t t, BeforePeriod before, bool closed, NextWord next) {
  if (next == NextWord::end) return true;
  if (closed && next == NextWord::lower) return false;  // "Run!" he said.
  if (t != '.') return true;
  switch (before) {
    case BeforePeriod::word:
      return true;
    case BeforePeriod::never_ends:
      return false;
    case BeforePeriod::may_end:
      return next != NextWord::lower && next != NextWord::digit;
  }
  return true;
}

// kSpans: also where each token came from (TextSpans); without, none of that work is done.
template <bool kSpans>
class Scanner {
 public:
  Scanner(std::string_view text, const TokenizerOptions& o, TextSpans* spans)
      : spans_(spans),
        s_(reinterpret_cast<const unsigned char*>(text.data())),
        n_(text.size()),
        lower_(o.lowercase),
        version_(o.version),
        unicode_(o.version >= 2),
        sentence_rules_(o.version >= 3),
        max_sentences_(o.max_sentences > 0 ? static_cast<std::size_t>(o.max_sentences) : kNone),
        max_words_(o.max_words > 0 ? static_cast<std::size_t>(o.max_words) : kNone),
        max_tokens_(o.max_tokens > 0 ? static_cast<std::size_t>(o.max_tokens) : kNone) {}

  TokenizedText run() {
    std::size_t i = 0;
    while (i < n_ && !done_) {
      // (A sentence that ends after closing quotes reads them first, even when full.)
      if (sentence_.size() >= room() && !end_pending_) {
        flush_word();  // dropped: the sentence is full
        const std::size_t from = i;
        i = skip_to_possible_sentence_end(i);
        if (kSpans && !sentence_cut_ && !only_space(from, i)) sentence_cut_ = true;
        if (i >= n_) break;
      }
      // An ASCII character followed by ASCII needs neither normalisation nor Unicode data.
      if (s_[i] < 0x80 && (i + 1 == n_ || s_[i + 1] < 0x80)) {
        i = ascii_step(i);
      } else {
        i = piece_step(i);
      }
    }
    if (!done_) end_sentence();
    else if (kSpans && !only_space(i, n_)) spans_->truncated = true;
    return std::move(out_);
  }

 private:
  // Whether bytes [b, e) hold nothing but ASCII whitespace and control characters.
  bool only_space(std::size_t b, std::size_t e) const {
    for (; b < e; ++b)
      if (s_[b] > ' ' && s_[b] != 0x7F) return false;
    return true;
  }

  std::size_t ascii_step(std::size_t i) {
    const unsigned char c = s_[i];
    if constexpr (kSpans) {  // the source of a token pushed here
      cur_begin_ = i;
      cur_end_ = i + 1;
    }
    switch (ascii_class(c)) {
      case C::word:
        return append_ascii_word(i);
      case C::space:
        if (end_pending_) end_sentence();
        flush_word();
        return i + 1;
      case C::line_feed:
        end_sentence();
        return i + 1;
      case C::carriage_return:
        end_sentence();
        return (i + 1 < n_ && s_[i + 1] == '\n') ? i + 2 : i + 1;
      case C::terminator:
        push_token(c);
        if (sentence_rules_) {
          terminator(c, c == '.' ? period_at(i) : BeforePeriod::word, i + 1);
        } else if (is_space_or_break(class_at(i + 1))) {
          end_sentence();
        }
        return i + 1;
      case C::punctuation:
        push_token(c);
        return i + 1;
      case C::apostrophe:
        if (!word_.empty() && class_at(i + 1) == C::word) {
          word_.push_back('\'');
        } else {
          push_token(c);
        }
        return i + 1;
      default:  // control characters
        flush_word();
        return i + 1;
    }
  }

  // A piece of text with non-ASCII in it: an ASCII character that may combine with what
  // follows, then valid non-ASCII code points up to the next ASCII or invalid byte (or a
  // safe cut). Normalised when needed, then fed code point by code point.
  std::size_t piece_step(std::size_t i) {
    piece_.clear();
    if constexpr (kSpans) piece_src_.clear();
    piece_start_ = i;
    bool stable = true;
    std::size_t j = i;
    if (s_[j] < 0x80) {
      if constexpr (kSpans) piece_src_.emplace_back(j, j + 1);
      piece_.push_back(s_[j++]);
    }
    while (j < n_ && s_[j] >= 0x80) {
      char32_t cp = 0;
      const std::size_t len = unicode::decode_utf8(s_ + j, n_ - j, cp);
      if (len == 0) break;
      if (j - i >= kPieceBytes &&
          (!unicode_ || unicode::safe_cut(static_cast<char32_t>(piece_.back()), cp))) {
        break;
      }
      if (unicode_ && stable) stable = unicode::normalization_stable(cp);
      if constexpr (kSpans) piece_src_.emplace_back(j, j + len);
      piece_.push_back(static_cast<std::int32_t>(cp));
      j += len;
    }
    if (piece_.empty()) {  // an invalid byte: a separator
      flush_word();
      return i + 1;
    }
    piece_end_ = j;
    if (!stable) {
      if constexpr (kSpans) normalized_sources();
      else unicode::normalize(piece_, scratch_);
    }
    for (std::size_t k = 0; k < piece_.size() && !done_; ++k) code_point(k);
    close_cluster();
    return j;
  }

  // Whether normalisation never reaches back across c: its normalised form starts with a
  // code point that is stable (a starter that never combines with what precedes it), or it
  // is a leading Hangul jamo (only vowels and trailing jamo compose with what precedes them).
  static bool starts_segment(char32_t c) {
    return unicode::normalization_stable(c) || (c >= 0x1100 && c <= 0x115F) || (c >= 0xA960 && c <= 0xA97C) ||
           unicode::normalization_stable(unicode::first_normalized(c));
  }

  // Spans: normalises the piece (as normalize() does) and finds where each normalised code
  // point came from. Normalisation never reaches back across a code point that starts a
  // segment, so the piece is normalised in segments that each start at one: every code point a segment
  // makes comes from the segment's bytes. Should the segments not give the piece's
  // normalised form, every code point is said to come from the whole piece.
  void normalized_sources() {
    original_ = piece_;
    unicode::normalize(piece_, scratch_);
    segmented_.clear();
    segmented_src_.clear();
    for (std::size_t a = 0; a < original_.size();) {
      std::size_t b = a + 1;
      while (b < original_.size() && !starts_segment(static_cast<char32_t>(original_[b]))) ++b;
      segment_.assign(original_.begin() + static_cast<std::ptrdiff_t>(a), original_.begin() + static_cast<std::ptrdiff_t>(b));
      unicode::normalize(segment_, segment_scratch_);
      for (const std::int32_t cp : segment_) {
        segmented_.push_back(cp);
        segmented_src_.emplace_back(piece_src_[a].first, piece_src_[b - 1].second);
      }
      a = b;
    }
    if (segmented_ == piece_) {
      piece_src_.swap(segmented_src_);
    } else {
      piece_src_.assign(piece_.size(), {piece_start_, piece_end_});
    }
  }

  // The k-th code point of the piece.
  void code_point(std::size_t k) {
    const auto cp = static_cast<char32_t>(piece_[k]);
    if constexpr (kSpans) {
      cur_begin_ = piece_src_[k].first;
      cur_end_ = piece_src_[k].second;
    }
    if (!cluster_text_.empty()) {
      if (cluster_.extends(cp)) {
        if (!is_variation_selector(cp)) append_lowered(cluster_text_, cp);
        if constexpr (kSpans) cluster_end_ = cur_end_;
        return;
      }
      close_cluster();
    }
    switch (char_class(cp, version_)) {
      case C::word:
        if constexpr (kSpans) {
          if (word_.empty()) word_begin_ = cur_begin_;
          word_end_ = cur_end_;
        }
        append_to_word(cp);
        return;
      case C::unspaced_letter:
        open_cluster(cp);
        return;
      case C::punctuation:
        if (unicode_) {
          open_cluster(cp);
        } else {
          push_token(cp);
        }
        return;
      case C::terminator:
        push_token(cp);
        if (sentence_rules_) {
          piece_terminator(k, cp);
        } else if (is_space_or_break(next_class(k))) {
          end_sentence();
        }
        return;
      case C::apostrophe:
        if (!word_.empty() && next_class(k) == C::word) {
          if constexpr (kSpans) word_end_ = cur_end_;
          unicode::append_utf8(word_, cp);
        } else {
          push_token(cp);
        }
        return;
      case C::joiner:
        if (!word_.empty() && next_class(k) == C::word) {
          if constexpr (kSpans) word_end_ = cur_end_;
          unicode::append_utf8(word_, cp);
        }
        return;
      case C::line_feed:
      case C::carriage_return:  // not followed by '\n' here: that pair is ASCII
      case C::line_break:
        end_sentence();
        return;
      case C::ignored:
        return;
      case C::space:
        if (end_pending_) end_sentence();
        flush_word();
        return;
      case C::separator:
        flush_word();
        return;
    }
  }

  // Version 3: terminator t ends the sentence when whitespace follows it (after closing
  // quotes and brackets), unless the rules say the period belongs to an abbreviation, an
  // initial or an ellipsis that continues. `after` is the byte just past it. A sentence that
  // ends inside closing quotes ends after them, at the whitespace that follows (end_pending_).
  void terminator(char32_t t, BeforePeriod before, std::size_t after) {
    const std::size_t j = skip_closers(s_, n_, after);
    if (!is_space_or_break(class_at(j))) return;  // "3.5", "e.g", "U.S."'s inner periods
    if (!ends_sentence(t, before, j > after, next_word(s_, n_, j))) return;
    if (j == after) end_sentence();
    else end_pending_ = true;  // at the whitespace after the closing quotes
  }

  // A terminator met in a piece: an ASCII one that starts it has its place in the text; one
  // that normalisation made ("…" -> "...") is looked at by what follows the piece.
  void piece_terminator(std::size_t k, char32_t cp) {
    if (k == 0 && s_[piece_start_] < 0x80) {
      terminator(cp, cp == '.' ? period_at(piece_start_) : BeforePeriod::word, piece_start_ + 1);
      return;
    }
    const BeforePeriod before = cp == '.' ? normalised_period(piece_start_, k) : BeforePeriod::word;
    for (std::size_t m = k + 1; m < piece_.size(); ++m) {
      const auto next = static_cast<char32_t>(piece_[m]);
      if (is_space_or_break(char_class(next, version_))) {  // whitespace inside the piece (U+3000)
        if (!ends_sentence(cp, before, m > k + 1, next_word_in_piece(m))) return;
        if (m == k + 1) end_sentence();
        else end_pending_ = true;  // at the whitespace after the closing quotes
        return;
      }
      if (!is_closer(next)) return;  // more text: not an end
    }
    terminator(cp, before, piece_end_);
  }

  // The next word from the m-th code point of the piece on, then from the text after it.
  NextWord next_word_in_piece(std::size_t m) const {
    for (; m < piece_.size(); ++m)
      if (const std::optional<NextWord> w = next_word_at(static_cast<char32_t>(piece_[m]))) return *w;
    return next_word(s_, n_, piece_end_);
  }

  // What the ASCII period at byte `pos` follows. The text before it is read as it is when
  // the run of letters before the period starts the text or follows ASCII; else normalised.
  BeforePeriod period_at(std::size_t pos) {
    const std::size_t b = run_start(s_, pos);
    if (b == 0 || s_[b - 1] < 0x80) return before_period(s_, pos);
    return normalised_period(pos, 0);
  }

  // What a period follows when the text before it is the raw text before byte `end`,
  // normalised, then the first k code points of the piece: so that a text and its
  // normalised form (fullwidth "Ｍｒ．") split alike.
  BeforePeriod normalised_period(std::size_t end, std::size_t k) {
    std::size_t start = end > 2 * kMaxAbbreviationRun ? end - 2 * kMaxAbbreviationRun : 0;
    while (start < end && (s_[start] & 0xC0) == 0x80) ++start;  // a whole code point first
    window_.clear();
    for (std::size_t j = start; j < end;) {
      char32_t cp = 0;
      const std::size_t len = unicode::decode_utf8(s_ + j, end - j, cp);
      window_.push_back(static_cast<std::int32_t>(len == 0 ? U' ' : cp));  // an invalid byte separates
      j += len == 0 ? 1 : len;
    }
    unicode::normalize(window_, window_scratch_);
    for (std::size_t m = 0; m < k; ++m) window_.push_back(piece_[m]);
    window_text_.clear();
    for (const std::int32_t cp : window_) unicode::append_utf8(window_text_, static_cast<char32_t>(cp));
    const auto* w = reinterpret_cast<const unsigned char*>(window_text_.data());
    if (start > 0 && run_start(w, window_text_.size()) == 0) return BeforePeriod::word;  // a long run: a word
    return before_period(w, window_text_.size());
  }

  // The class of the code point after the k-th of the piece (normalised).
  CharClass next_class(std::size_t k) const {
    return k + 1 < piece_.size() ? char_class(static_cast<char32_t>(piece_[k + 1]), version_)
                                 : class_at(piece_end_);
  }

  // The class of the first normalised code point at byte j, where a piece may start.
  // The end of the text counts as a line break.
  CharClass class_at(std::size_t j) const {
    if (j >= n_) return C::line_feed;
    if (s_[j] < 0x80) return ascii_class(s_[j]);
    char32_t cp = 0;
    if (unicode::decode_utf8(s_ + j, n_ - j, cp) == 0) return C::separator;
    if (unicode_ && !unicode::normalization_stable(cp)) cp = unicode::first_normalized(cp);
    return char_class(cp, version_);
  }

  // Past what cannot end the full sentence (its words would be dropped): stops at a
  // terminator or line break, or at any code point that normalisation may change (it may
  // become one: "…", "！").
  std::size_t skip_to_possible_sentence_end(std::size_t i) const {
    while (i < n_) {
      const unsigned char c = s_[i];
      if (c < 0x80) {
        if (kStops.stop[c]) return i;
        ++i;
        continue;
      }
      char32_t cp = 0;
      const std::size_t len = unicode::decode_utf8(s_ + i, n_ - i, cp);
      if (len == 0) {
        ++i;
        continue;
      }
      if (char_class(cp, version_) == C::line_break) return i;
      if (unicode_ && !unicode::normalization_stable(cp)) return i;
      i += len;
    }
    return i;
  }

  // Appends the run of ASCII letters and digits at `begin`; returns where it ends.
  std::size_t append_ascii_word(std::size_t begin) {
    const unsigned char* const s = s_;  // locals: the loop need not reload members
    const std::size_t n = n_;
    if constexpr (kSpans) {
      if (word_.empty()) word_begin_ = begin;
    }
    std::size_t end = begin;
    if (lower_) {
      do {
        word_.push_back(ascii_lower(s[end]));
      } while (++end < n && s[end] < 0x80 && ascii_class(s[end]) == C::word);
    } else {
      do {
        word_.push_back(static_cast<char>(s[end]));
      } while (++end < n && s[end] < 0x80 && ascii_class(s[end]) == C::word);
    }
    // A last letter followed by non-ASCII may combine with it ("e" + U+0301 is "é"):
    // piece_step() takes it. (The run is longer than one: ascii_step saw ASCII after it.)
    if (end < n && s[end] >= 0x80) {
      word_.pop_back();
      --end;
    }
    if constexpr (kSpans) word_end_ = end;
    if (sigma_at_ != kNone) {  // a cased letter after a σ: not final
      for (std::size_t k = begin; k < end; ++k) {
        if ((s_[k] | 0x20) >= 'a' && (s_[k] | 0x20) <= 'z') sigma_at_ = kNone;
      }
    }
    return end;
  }

  void append_to_word(char32_t cp) {
    if (lower_ && unicode_) {
      // A capital sigma after a cased letter lowercases to ς if no cased letter follows
      // in the word (decided in flush_word): "ΣΊΣΥΦΟΣ" -> "σίσυφος".
      if (sigma_at_ != kNone && is_cased_letter(cp)) sigma_at_ = kNone;
      if (cp == 0x3A3 && word_has_cased_letter()) sigma_at_ = word_.size();
    }
    append_lowered(word_, cp);
  }

  void append_lowered(std::string& out, char32_t cp) const {
    unicode::append_utf8(out, lower_ ? to_lower(cp, version_) : cp);
  }

  bool word_has_cased_letter() const {
    const auto* w = reinterpret_cast<const unsigned char*>(word_.data());
    for (std::size_t i = 0; i < word_.size();) {
      char32_t cp = 0;
      const std::size_t len = unicode::decode_utf8(w + i, word_.size() - i, cp);
      if (is_cased_letter(cp)) return true;
      i += len;
    }
    return false;
  }

  // A symbol or a letter of an unspaced script: a token as long as its grapheme cluster.
  void open_cluster(char32_t cp) {
    flush_word();
    if constexpr (kSpans) {
      cluster_begin_ = cur_begin_;
      cluster_end_ = cur_end_;
    }
    cluster_.start(cp);
    append_lowered(cluster_text_, cp);
  }

  void close_cluster() {
    if (cluster_text_.empty()) return;
    if (sentence_.size() < room()) {
      sentence_.push_back(cluster_text_);
      if constexpr (kSpans) push_span(cluster_begin_, cluster_end_);
    } else {
      sentence_cut_ = true;
    }
    cluster_text_.clear();
  }

  void flush_word() {
    if (word_.empty()) return;
    if (sigma_at_ != kNone) {
      word_[sigma_at_ + 1] = '\x82';  // σ (CF 83) -> ς (CF 82)
      sigma_at_ = kNone;
    }
    if (sentence_.size() < room()) {
      sentence_.push_back(word_);
      if constexpr (kSpans) push_span(word_begin_, word_end_);
    } else {
      sentence_cut_ = true;
    }
    word_.clear();  // keeps the capacity: no allocation per character
  }

  void push_token(char32_t cp) {
    flush_word();
    if (sentence_.size() < room()) {
      if (cp < 0x80) {
        sentence_.emplace_back(1, static_cast<char>(cp));
      } else {
        sentence_.emplace_back();
        unicode::append_utf8(sentence_.back(), cp);
      }
      if constexpr (kSpans) push_span(cur_begin_, cur_end_);
    } else {
      sentence_cut_ = true;
    }
  }

  // A token's source; one that normalisation made from the characters of the token before
  // it ("…" -> "...") starts where that one ends (and may be empty).
  void push_span(std::size_t begin, std::size_t end) {
    begin = std::max(begin, last_end_);
    end = std::max(end, begin);
    last_end_ = end;
    sentence_spans_.push_back({begin, end});
  }

  // Closes the current sentence; done_ once max_sentences or max_tokens is reached.
  void end_sentence() {
    end_pending_ = false;
    flush_word();
    if (sentence_.empty()) {
      sentence_cut_ = false;
      return;
    }
    if constexpr (kSpans) {
      spans_->sentences.push_back(std::move(sentence_spans_));
      spans_->cut.push_back(sentence_cut_);
      sentence_spans_.clear();
    }
    sentence_cut_ = false;
    emitted_ += sentence_.size();
    // One exact-size allocation per sentence; the buffer keeps its capacity.
    out_.emplace_back(std::make_move_iterator(sentence_.begin()),
                      std::make_move_iterator(sentence_.end()));
    sentence_.clear();
    done_ = out_.size() >= max_sentences_ || emitted_ >= max_tokens_;
  }

  // How many words the open sentence may hold: max_words, and what max_tokens leaves.
  std::size_t room() const { return max_tokens_ == kNone ? max_words_ : std::min(max_words_, max_tokens_ - emitted_); }

  TextSpans* spans_;  // null: no spans (the fast path)
  const unsigned char* s_;
  std::size_t n_;
  bool lower_;
  int version_;
  bool unicode_;
  bool sentence_rules_;  // version 3: abbreviations, initials, ellipses, closing quotes
  std::size_t max_sentences_;
  std::size_t max_words_;
  std::size_t max_tokens_;
  std::size_t emitted_ = 0;  // tokens in the closed sentences
  bool done_ = false;
  TokenizedText out_;
  Sentence sentence_;
  std::string word_;
  std::size_t sigma_at_ = kNone;  // offset in word_ of a σ that may be final
  unicode::CodePoints piece_, scratch_;
  std::size_t piece_start_ = 0;  // byte offset of the piece's first code point
  unicode::CodePoints window_, window_scratch_;  // normalised_period's
  std::string window_text_;
  std::size_t piece_end_ = 0;  // byte offset just past the piece
  bool end_pending_ = false;  // version 3: the sentence ends at the whitespace after its closing quotes
  unicode::GraphemeCluster cluster_;
  std::string cluster_text_;  // the open cluster's token; empty when none is open
  // Spans (tokenize with a TextSpans): where the code point being read, the word and the
  // cluster came from, and the spans of the sentence being read.
  std::size_t cur_begin_ = 0, cur_end_ = 0;
  std::size_t word_begin_ = 0, word_end_ = 0;
  std::size_t cluster_begin_ = 0, cluster_end_ = 0;
  std::size_t last_end_ = 0;
  bool sentence_cut_ = false;  // a token of the sentence was dropped (max_words)
  std::vector<TokenSpan> sentence_spans_;
  std::vector<std::pair<std::size_t, std::size_t>> piece_src_, segmented_src_;  // per code point of piece_
  unicode::CodePoints original_, segmented_, segment_, segment_scratch_;
};

}  // namespace

TokenizedText Tokenizer::tokenize(std::string_view text) const {
  return Scanner<false>(text, options_, nullptr).run();
}

TokenizedText Tokenizer::tokenize(std::string_view text, TextSpans& spans) const {
  spans = TextSpans{};
  return Scanner<true>(text, options_, &spans).run();
}

}  // namespace han
