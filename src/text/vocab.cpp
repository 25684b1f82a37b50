#include "han/text/vocab.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "han/core/error.h"
#include "han/core/json_text.h"

namespace han {

namespace {
const char* const kPadWord = "<pad>";
const char* const kUnkWord = "<unk>";
}  // namespace

Vocab::Vocab() : Vocab(std::vector<std::string>{kPadWord, kUnkWord}) {}

Vocab::Vocab(std::vector<std::string> words) : words_(std::move(words)) {
  std::size_t capacity = 4;
  while (capacity < 2 * words_.size()) capacity *= 2;
  slots_.assign(capacity, kEmpty);
  for (std::size_t i = 0; i < words_.size(); ++i) {
    if (!insert(static_cast<std::int32_t>(i))) {
      throw Error("vocabulary: duplicate entry " + quote_excerpt(words_[i]) + " at ids " +
                  std::to_string(slots_[slot_of(words_[i])]) + " and " + std::to_string(i));
    }
  }
}

std::size_t Vocab::slot_of(std::string_view word) const {
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = std::hash<std::string_view>{}(word) & mask;; i = (i + 1) & mask) {
    const std::int32_t id = slots_[i];
    if (id == kEmpty || words_[static_cast<std::size_t>(id)] == word) return i;
  }
}

bool Vocab::insert(std::int32_t id) {
  const std::size_t i = slot_of(words_[static_cast<std::size_t>(id)]);
  if (slots_[i] != kEmpty) return false;
  slots_[i] = id;
  return true;
}

Vocab Vocab::from_words(std::vector<std::string> words) {
  if (words.size() < 2 || words[kPad] != kPadWord || words[kUnk] != kUnkWord) {
    throw Error("vocabulary: entries 0 and 1 must be \"<pad>\" and \"<unk>\"");
  }
  if (words.size() > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max() / 4)) {
    throw Error("vocabulary: too many entries (" + std::to_string(words.size()) + ")");
  }
  return Vocab(std::move(words));
}

std::int32_t Vocab::id(std::string_view word) const {
  const std::int32_t id = slots_[slot_of(word)];
  return id == kEmpty ? kUnk : id;
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

MinCountChoice VocabBuilder::choose_min_count() const {
  // tokens_seen[n]: the tokens of the words seen exactly n times, for n < kAutoMinCountMost.
  std::vector<double> tokens_seen(kAutoMinCountMost, 0.0);
  double total = 0;
  for (const auto& [w, n] : counts_) {
    total += static_cast<double>(n);
    if (n < kAutoMinCountMost) tokens_seen[static_cast<std::size_t>(n)] += static_cast<double>(n);
  }
  if (total == 0) return {};
  double kept = total;
  for (int n = 1; n < kAutoMinCountMost; ++n) kept -= tokens_seen[static_cast<std::size_t>(n)];
  MinCountChoice choice{kAutoMinCountMost, kept / total};
  // Lowering the threshold from n + 1 to n keeps the words seen exactly n times too.
  while (choice.min_count > kAutoMinCountLeast && choice.kept_fraction < kAutoMinCountKeep) {
    --choice.min_count;
    kept += tokens_seen[static_cast<std::size_t>(choice.min_count)];
    choice.kept_fraction = kept / total;
  }
  return choice;
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
