#include "han/text/vocab.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "han/core/error.h"

namespace han {

namespace {
const char* const kPadWord = "<pad>";
const char* const kUnkWord = "<unk>";
}  // namespace

Vocab::Vocab() : words_{kPadWord, kUnkWord} {
  ids_.emplace(words_[kPad], kPad);
  ids_.emplace(words_[kUnk], kUnk);
}

Vocab Vocab::from_words(std::vector<std::string> words) {
  if (words.size() < 2 || words[kPad] != kPadWord || words[kUnk] != kUnkWord) {
    throw Error("vocabulary: entries 0 and 1 must be \"<pad>\" and \"<unk>\"");
  }
  if (words.size() > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max())) {
    throw Error("vocabulary: too many entries (" + std::to_string(words.size()) + ")");
  }
  Vocab v;
  v.ids_.clear();
  v.ids_.reserve(words.size());
  for (std::size_t i = 0; i < words.size(); ++i) {
    const auto inserted = v.ids_.emplace(words[i], static_cast<std::int32_t>(i));
    if (!inserted.second) {
      throw Error("vocabulary: duplicate entry \"" + words[i] + "\" at ids " +
                  std::to_string(inserted.first->second) + " and " + std::to_string(i));
    }
  }
  v.words_ = std::move(words);
  return v;
}

std::int32_t Vocab::id(std::string_view word) const {
  // Short words fit the small-string buffer, so this key costs no allocation.
  const auto it = ids_.find(std::string(word));
  return it == ids_.end() ? kUnk : it->second;
}

const std::string& Vocab::word(std::int32_t id) const {
  HAN_ASSERT(id >= 0 && static_cast<std::size_t>(id) < words_.size());
  return words_[static_cast<std::size_t>(id)];
}

void VocabBuilder::add(const TokenizedText& text) {
  for (const Sentence& sentence : text) {
    for (const std::string& w : sentence) ++counts_[w];
  }
}

Vocab VocabBuilder::build(int min_count, int max_size) const {
  std::vector<std::pair<const std::string*, std::int64_t>> kept;
  kept.reserve(counts_.size());
  for (const auto& [w, n] : counts_) {
    if (n < min_count || w == kPadWord || w == kUnkWord) continue;
    kept.emplace_back(&w, n);
  }
  const auto before = [](const auto& a, const auto& b) {
    if (a.second != b.second) return a.second > b.second;
    return *a.first < *b.first;  // std::string compares bytes as unsigned char
  };
  std::size_t limit = kept.size();
  if (max_size > 0) limit = std::min(limit, static_cast<std::size_t>(std::max(max_size, 2) - 2));
  if (limit < kept.size()) {
    std::partial_sort(kept.begin(), kept.begin() + static_cast<std::ptrdiff_t>(limit), kept.end(),
                      before);
    kept.resize(limit);
  } else {
    std::sort(kept.begin(), kept.end(), before);
  }
  std::vector<std::string> words{kPadWord, kUnkWord};
  words.reserve(kept.size() + 2);
  for (const auto& entry : kept) words.push_back(*entry.first);
  return Vocab::from_words(std::move(words));
}

}  // namespace han
