#include "han/text/vocab.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <utility>

#include "han/core/error.h"
#include "han/core/json_text.h"

#include <xxhash.h>

namespace han {

namespace {
const char* const kPadWord = "<pad>";
const char* const kUnkWord = "<unk>";
}  // namespace

Vocab::Vocab() : Vocab(std::vector<std::string>{kPadWord, kUnkWord}) {}

Vocab::Vocab(std::vector<std::string> words) : size_(words.size()), words_(std::move(words)) {
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

std::int32_t Vocab::slot(std::size_t i) const {
  if (!stored_) return slots_[i];
  std::int32_t id;
  std::memcpy(&id, stored_slots_ + sizeof id * i, sizeof id);
  if (id != kEmpty && (id < 0 || static_cast<std::size_t>(id) >= size_)) corrupted();
  return id;
}

std::size_t Vocab::slot_of(std::string_view word) const {
  const std::size_t mask = slot_count() - 1;
  std::size_t i = XXH3_64bits(word.data(), word.size()) & mask;
  for (std::size_t probes = 0; probes <= mask; ++probes, i = (i + 1) & mask) {
    const std::int32_t id = slot(i);
    if (id == kEmpty || this->word(id) == word) return i;
  }
  corrupted();  // a full table: only a stored one can be
}

void Vocab::corrupted() const { throw Error(origin_ + ": model file is corrupted (its vocabulary)"); }

Vocab Vocab::in_place(Stored stored, std::string origin) {
  Vocab v;
  v.words_.clear();
  v.slots_.clear();
  v.origin_ = std::move(origin);
  const Index n = stored.offsets.cols() - 1;
  const Index slots = stored.slots.cols();
  // At most half full, a power of two (as the table is built), and PAD and UNK first.
  if (stored.offsets.rows() != 1 || stored.slots.rows() != 1 || stored.text.rows() != 1 || n < 2 || slots < 2 * n ||
      (slots & (slots - 1)) != 0)
    v.corrupted();
  v.size_ = static_cast<std::size_t>(n);
  v.stored_ = std::make_shared<const Stored>(std::move(stored));
  const auto whole = [](const TensorView& t) { return reinterpret_cast<const char*>(t.values(0, t.cols())); };
  v.text_ = whole(v.stored_->text);
  v.offsets_ = whole(v.stored_->offsets);
  v.stored_slots_ = whole(v.stored_->slots);
  if (v.word(kPad) != kPadWord || v.word(kUnk) != kUnkWord) v.corrupted();
  return v;
}

std::string Vocab::joined() const {
  std::string out;
  for (std::size_t i = 0; i < size_; ++i) {
    const std::string_view w = word(static_cast<std::int32_t>(i));
    HAN_ASSERT(w.find('\n') == std::string_view::npos);
    if (i > 0) out += '\n';
    out += w;
  }
  return out;
}

std::vector<std::string> split_joined(const std::string& joined) {
  std::vector<std::string> words;
  words.reserve(static_cast<std::size_t>(std::count(joined.begin(), joined.end(), '\n')) + 1);
  for (std::size_t start = 0;;) {
    const std::size_t end = joined.find('\n', start);
    words.emplace_back(joined, start, end == std::string::npos ? std::string::npos : end - start);
    if (end == std::string::npos) return words;
    start = end + 1;
  }
}

std::vector<std::uint32_t> Vocab::offsets() const {
  std::vector<std::uint32_t> out{0};
  for (std::size_t i = 0; i < size_; ++i) {
    const std::size_t next = out.back() + word(static_cast<std::int32_t>(i)).size() + (i + 1 < size_ ? 1 : 0);
    HAN_ASSERT(next <= UINT32_MAX);
    out.push_back(static_cast<std::uint32_t>(next));
  }
  return out;
}

std::vector<std::string> Vocab::words() const {
  if (!stored_) return words_;
  std::vector<std::string> out;
  out.reserve(size_);
  for (std::size_t i = 0; i < size_; ++i) out.emplace_back(word(static_cast<std::int32_t>(i)));
  return out;
}

bool Vocab::insert(std::int32_t id) {
  HAN_ASSERT(!stored_);
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
  const std::int32_t id = slot(slot_of(word));
  return id == kEmpty ? kUnk : id;
}

std::string_view Vocab::word(std::int32_t id) const {
  HAN_ASSERT(id >= 0 && static_cast<std::size_t>(id) < size_);
  if (!stored_) return words_[static_cast<std::size_t>(id)];
  // Word id runs from offsets[id] to the '\n' before offsets[id + 1] (the last to the end).
  std::uint32_t at[2];
  std::memcpy(at, offsets_ + sizeof(std::uint32_t) * static_cast<std::size_t>(id), sizeof at);
  const std::size_t text_bytes = 4 * static_cast<std::size_t>(stored_->text.cols());
  const bool last = static_cast<std::size_t>(id) + 1 == size_;
  const std::size_t begin = at[0], next = at[1];  // (size_t: no u32 wrap-around)
  if (next > text_bytes || next < begin + (last ? 0 : 1)) corrupted();
  const std::size_t end = last ? next : next - 1;
  if (end == begin) return {};
  return {text_ + begin, end - begin};
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
