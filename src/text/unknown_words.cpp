#include "han/text/unknown_words.h"

#include <limits>

#include "han/core/error.h"

namespace han {

void UnknownWords::add(std::string_view word) {
  if (!indexed_) {
    for (std::size_t i = 0; i < words_.size(); ++i) index_.emplace(words_[i], static_cast<std::uint32_t>(i));
    indexed_ = true;
  }
  key_.assign(word);  // a buffer reused, so a word already stored costs no allocation
  if (const auto it = index_.find(key_); it != index_.end()) {
    ids_.push_back(it->second);
    return;
  }
  if (words_.size() >= std::numeric_limits<std::uint32_t>::max()) throw Error("too many distinct unknown words");
  const auto id = static_cast<std::uint32_t>(words_.size());
  index_.emplace(key_, id);
  words_.emplace_back(word);
  ids_.push_back(id);
}

void UnknownWords::end_document() { starts_.push_back(ids_.size()); }

void UnknownWords::truncate(std::size_t n) {
  if (n >= documents()) return;
  starts_.resize(n + 1);
  ids_.resize(starts_.back());
}

std::size_t UnknownWords::bytes() const {
  std::size_t text = 0;
  for (const std::string& w : words_) text += w.size() + sizeof(std::string);
  return starts_.size() * sizeof(std::uint64_t) + ids_.size() * sizeof(std::uint32_t) + 2 * text;
}

UnknownWords UnknownWords::from_arrays(std::vector<std::uint64_t> starts, std::vector<std::uint32_t> ids,
                                       std::vector<std::string> distinct, const std::string& origin) {
  const auto bad = [&](const char* what) { return Error(origin + ": " + what + " (its unknown words)"); };
  if (starts.empty() || starts.front() != 0 || starts.back() != ids.size()) throw bad("is corrupted");
  for (std::size_t i = 1; i < starts.size(); ++i)
    if (starts[i] < starts[i - 1]) throw bad("is corrupted");
  for (std::uint32_t id : ids)
    if (id >= distinct.size()) throw bad("is corrupted");
  UnknownWords u;
  u.starts_ = std::move(starts);
  u.ids_ = std::move(ids);
  u.words_ = std::move(distinct);
  u.indexed_ = false;  // the lookup add() needs is built on its first call
  return u;
}

}  // namespace han
