#include "han/text/tokenizer.h"

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>

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

class Scanner {
 public:
  Scanner(std::string_view text, const TokenizerOptions& o)
      : s_(reinterpret_cast<const unsigned char*>(text.data())),
        n_(text.size()),
        lower_(o.lowercase),
        version_(o.version),
        unicode_(o.version >= 2),
        max_sentences_(o.max_sentences > 0 ? static_cast<std::size_t>(o.max_sentences) : kNone),
        max_words_(o.max_words > 0 ? static_cast<std::size_t>(o.max_words) : kNone) {}

  TokenizedText run() {
    std::size_t i = 0;
    while (i < n_ && !done_) {
      if (sentence_.size() >= max_words_) {
        flush_word();  // dropped: the sentence is full
        i = skip_to_possible_sentence_end(i);
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
    return std::move(out_);
  }

 private:
  std::size_t ascii_step(std::size_t i) {
    const unsigned char c = s_[i];
    switch (ascii_class(c)) {
      case C::word:
        return append_ascii_word(i);
      case C::space:
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
        if (is_space_or_break(class_at(i + 1))) end_sentence();
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
    bool stable = true;
    std::size_t j = i;
    if (s_[j] < 0x80) piece_.push_back(s_[j++]);
    while (j < n_ && s_[j] >= 0x80) {
      char32_t cp = 0;
      const std::size_t len = unicode::decode_utf8(s_ + j, n_ - j, cp);
      if (len == 0) break;
      if (j - i >= kPieceBytes &&
          (!unicode_ || unicode::safe_cut(static_cast<char32_t>(piece_.back()), cp))) {
        break;
      }
      if (unicode_ && stable) stable = unicode::normalization_stable(cp);
      piece_.push_back(static_cast<std::int32_t>(cp));
      j += len;
    }
    if (piece_.empty()) {  // an invalid byte: a separator
      flush_word();
      return i + 1;
    }
    piece_end_ = j;
    if (!stable) unicode::normalize(piece_, scratch_);
    for (std::size_t k = 0; k < piece_.size() && !done_; ++k) code_point(k);
    close_cluster();
    return j;
  }

  // The k-th code point of the piece.
  void code_point(std::size_t k) {
    const auto cp = static_cast<char32_t>(piece_[k]);
    if (!cluster_text_.empty()) {
      if (cluster_.extends(cp)) {
        if (!is_variation_selector(cp)) append_lowered(cluster_text_, cp);
        return;
      }
      close_cluster();
    }
    switch (char_class(cp, version_)) {
      case C::word:
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
        if (is_space_or_break(next_class(k))) end_sentence();
        return;
      case C::apostrophe:
        if (!word_.empty() && next_class(k) == C::word) {
          unicode::append_utf8(word_, cp);
        } else {
          push_token(cp);
        }
        return;
      case C::joiner:
        if (!word_.empty() && next_class(k) == C::word) unicode::append_utf8(word_, cp);
        return;
      case C::line_feed:
      case C::carriage_return:  // not followed by '\n' here: that pair is ASCII
      case C::line_break:
        end_sentence();
        return;
      case C::ignored:
        return;
      case C::space:
      case C::separator:
        flush_word();
        return;
    }
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
    cluster_.start(cp);
    append_lowered(cluster_text_, cp);
  }

  void close_cluster() {
    if (cluster_text_.empty()) return;
    if (sentence_.size() < max_words_) sentence_.push_back(cluster_text_);
    cluster_text_.clear();
  }

  void flush_word() {
    if (word_.empty()) return;
    if (sigma_at_ != kNone) {
      word_[sigma_at_ + 1] = '\x82';  // σ (CF 83) -> ς (CF 82)
      sigma_at_ = kNone;
    }
    if (sentence_.size() < max_words_) sentence_.push_back(word_);
    word_.clear();  // keeps the capacity: no allocation per character
  }

  void push_token(char32_t cp) {
    flush_word();
    if (sentence_.size() < max_words_) {
      if (cp < 0x80) {
        sentence_.emplace_back(1, static_cast<char>(cp));
      } else {
        sentence_.emplace_back();
        unicode::append_utf8(sentence_.back(), cp);
      }
    }
  }

  // Closes the current sentence; done_ once max_sentences is reached.
  void end_sentence() {
    flush_word();
    if (sentence_.empty()) return;
    // One exact-size allocation per sentence; the buffer keeps its capacity.
    out_.emplace_back(std::make_move_iterator(sentence_.begin()),
                      std::make_move_iterator(sentence_.end()));
    sentence_.clear();
    done_ = out_.size() >= max_sentences_;
  }

  const unsigned char* s_;
  std::size_t n_;
  bool lower_;
  int version_;
  bool unicode_;
  std::size_t max_sentences_;
  std::size_t max_words_;
  bool done_ = false;
  TokenizedText out_;
  Sentence sentence_;
  std::string word_;
  std::size_t sigma_at_ = kNone;  // offset in word_ of a σ that may be final
  unicode::CodePoints piece_, scratch_;
  std::size_t piece_end_ = 0;  // byte offset just past the piece
  unicode::GraphemeCluster cluster_;
  std::string cluster_text_;  // the open cluster's token; empty when none is open
};

}  // namespace

TokenizedText Tokenizer::tokenize(std::string_view text) const {
  return Scanner(text, options_).run();
}

}  // namespace han
