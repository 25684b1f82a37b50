#pragma once
// What the linear member reads of a document (model.linear_text): all of it, or the HAN's
// view within the caps; and, for its character n-grams, each word's text where the
// vocabulary lacks it (the document's kept unknown words, text/unknown_words.h).
#include <cstdint>
#include <string_view>

#include "han/core/config_enums.h"
#include "han/text/documents.h"
#include "han/text/vocab.h"

namespace han {

// The sentences of d the linear member reads.
inline SentenceList member_sentences(const DocumentView& d, LinearText text) {
  return text == LinearText::whole ? d.whole : d.sentences;
}

// Calls f(id, unknown) for each word the member reads of d, in order: `unknown` is the
// word's text when id is <unk> and d keeps its unknown words, else empty. The unknown
// words follow the whole document's <unk> tokens, so under the caps those past them are
// skipped in step.
template <class F>
void for_each_member_word(const DocumentView& d, LinearText text, F&& f) {
  std::size_t next_unknown = 0;
  const std::size_t in_view = text == LinearText::whole ? d.whole.size() : d.sentences.size();
  std::size_t s = 0;
  for (const WordIds sentence : d.whole) {
    const std::size_t read = s < in_view ? (text == LinearText::whole ? sentence.size() : d.sentences[s].size()) : 0;
    ++s;
    for (std::size_t w = 0; w < sentence.size(); ++w) {
      const std::int32_t id = sentence[w];
      std::string_view word;
      if (id == Vocab::kUnk && next_unknown < d.unknown.size()) word = d.unknown[next_unknown++];
      if (w < read) f(id, word);
    }
  }
}

}  // namespace han
