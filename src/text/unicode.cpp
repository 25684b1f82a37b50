#include "han/text/unicode.h"

#include <utf8proc.h>

#include <algorithm>

namespace han::unicode {
namespace {

constexpr std::size_t kMaxDecomposition = 32;  // the longest is 18 code points (U+FDFA)
// Every code point that takes part in a decomposition or a composition lies below this.
constexpr char32_t kTableEnd = 0x30000;

bool is_surrogate(char32_t c) { return c >= 0xD800 && c <= 0xDFFF; }

bool is_hangul_jamo(char32_t c) {
  return (c >= 0x1100 && c <= 0x11FF) || (c >= 0xA960 && c <= 0xA97F) || (c >= 0xD7B0 && c <= 0xD7FF);
}

int combining_class(std::int32_t c) { return utf8proc_get_property(c)->combining_class; }

// Hangul syllables decompose by arithmetic, without an entry in the table.
bool has_decomposition(char32_t c) {
  return utf8proc_get_property(static_cast<std::int32_t>(c))->decomp_seqindex != UINT16_MAX ||
         (c >= 0xAC00 && c <= 0xD7A3);
}

// Compatibility forms that normalisation leaves alone (see unicode.h): a space plus a
// combining mark (spacing accents), or a fraction slash (vulgar fractions).
bool kept_compatibility_form(const std::int32_t* d, utf8proc_ssize_t k) {
  if (k > 1 && d[0] == ' ') return true;
  for (utf8proc_ssize_t i = 0; i < k; ++i) {
    if (d[i] == 0x2044) return true;
  }
  return false;
}

// c's normalisation decomposition (compatibility, but canonical only for the forms kept
// above), written to out; returns its length.
std::size_t decompose(std::int32_t c, std::int32_t* out) {
  constexpr auto kCompatibility = static_cast<utf8proc_option_t>(UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT);
  utf8proc_ssize_t k = utf8proc_decompose_char(c, out, kMaxDecomposition, kCompatibility, nullptr);
  if (k >= 1 && k <= static_cast<utf8proc_ssize_t>(kMaxDecomposition) && kept_compatibility_form(out, k)) {
    k = utf8proc_decompose_char(c, out, kMaxDecomposition, UTF8PROC_DECOMPOSE, nullptr);
  }
  if (k < 1 || k > static_cast<utf8proc_ssize_t>(kMaxDecomposition)) {  // not for valid input
    out[0] = c;
    return 1;
  }
  return static_cast<std::size_t>(k);
}

// Canonical ordering: each run of combining marks sorted by combining class, stably.
// Short runs (all real text) by insertion; long ones (hostile input) in O(n log n).
void canonical_order(CodePoints& cps) {
  const auto by_class = [](std::int32_t a, std::int32_t b) { return combining_class(a) < combining_class(b); };
  std::size_t i = 0;
  while (i < cps.size()) {
    if (combining_class(cps[i]) == 0) {
      ++i;
      continue;
    }
    std::size_t end = i + 1;
    while (end < cps.size() && combining_class(cps[end]) != 0) ++end;
    if (end - i > 16) {
      std::stable_sort(cps.begin() + static_cast<std::ptrdiff_t>(i),
                       cps.begin() + static_cast<std::ptrdiff_t>(end), by_class);
    } else {
      for (std::size_t k = i + 1; k < end; ++k) {
        const std::int32_t x = cps[k];
        std::size_t m = k;
        for (; m > i && by_class(x, cps[m - 1]); --m) cps[m] = cps[m - 1];
        cps[m] = x;
      }
    }
    i = end;
  }
}

// Which code points below kTableEnd are normalization_stable(): computed once from
// utf8proc's data (a few milliseconds) rather than from its internal composition tables.
class StableTable {
 public:
  StableTable() : stable_(kTableEnd, false) {
    // A starter found after the first place of a canonical decomposition (a Hangul vowel,
    // an Indic length mark) may compose with the character before it.
    std::vector<bool> combines_back(kTableEnd, false);
    std::int32_t d[kMaxDecomposition];
    for (char32_t c = 0; c < kTableEnd; ++c) {
      if (is_surrogate(c) || !has_decomposition(c)) continue;
      const auto k = utf8proc_decompose_char(static_cast<std::int32_t>(c), d, kMaxDecomposition,
                                             UTF8PROC_DECOMPOSE, nullptr);
      for (utf8proc_ssize_t i = 1; i < std::min<utf8proc_ssize_t>(k, kMaxDecomposition); ++i) {
        const auto second = static_cast<char32_t>(d[i]);
        if (combining_class(d[i]) == 0 && second < kTableEnd) combines_back[second] = true;
      }
    }
    CodePoints one, scratch;
    for (char32_t c = 0; c < kTableEnd; ++c) {
      if (is_surrogate(c) || is_hangul_jamo(c) || combines_back[c] ||
          combining_class(static_cast<std::int32_t>(c)) != 0) {
        continue;
      }
      if (!has_decomposition(c)) {
        stable_[c] = true;
        continue;
      }
      decompose(static_cast<std::int32_t>(c), d);
      const auto first = static_cast<char32_t>(d[0]);
      if (first < kTableEnd && !combines_back[first]) {
        one.assign(1, static_cast<std::int32_t>(c));
        normalize(one, scratch);
        stable_[c] = one.size() == 1 && static_cast<char32_t>(one[0]) == c;
      }
    }
  }
  bool operator[](char32_t c) const { return stable_[c]; }

 private:
  std::vector<bool> stable_;
};

}  // namespace

bool normalization_stable(char32_t c) {
  if (c < 0x80) return true;
  if (c < kTableEnd) {
    static const StableTable table;
    return table[c];
  }
  // Nothing up here composes; a character is stable when it has no decomposition.
  return combining_class(static_cast<std::int32_t>(c)) == 0 && !has_decomposition(c);
}

void normalize(CodePoints& cps, CodePoints& scratch) {
  scratch.clear();
  std::int32_t d[kMaxDecomposition];
  for (const std::int32_t c : cps) {
    const std::size_t k = decompose(c, d);
    scratch.insert(scratch.end(), d, d + k);
  }
  canonical_order(scratch);
  // STABLE: no composition into the characters excluded from it (U+2ADC, U+1D15E...).
  constexpr auto kCompose = static_cast<utf8proc_option_t>(UTF8PROC_COMPOSE | UTF8PROC_STABLE);
  const utf8proc_ssize_t n = utf8proc_normalize_utf32(
      scratch.data(), static_cast<utf8proc_ssize_t>(scratch.size()), kCompose);
  if (n >= 0) scratch.resize(static_cast<std::size_t>(n));
  cps.swap(scratch);
}

char32_t first_normalized(char32_t c) {
  std::int32_t d[kMaxDecomposition];
  decompose(static_cast<std::int32_t>(c), d);
  return static_cast<char32_t>(d[0]);
}

bool safe_cut(char32_t prev, char32_t c) {
  // A plain starter (no cluster rule binds it to what precedes, unless that is a prepended
  // mark) that normalisation leaves alone.
  const auto boundclass = [](char32_t x) {
    return utf8proc_get_property(static_cast<std::int32_t>(x))->boundclass;
  };
  return boundclass(c) == UTF8PROC_BOUNDCLASS_OTHER &&
         boundclass(prev) != UTF8PROC_BOUNDCLASS_PREPEND && normalization_stable(c);
}

bool GraphemeCluster::extends(char32_t c) {
  const auto ci = static_cast<std::int32_t>(c);
  const bool breaks = utf8proc_grapheme_break_stateful(last_, ci, &state_);
  last_ = ci;
  return !breaks;
}

}  // namespace han::unicode
