#pragma once
// Self-contained HTML (inline CSS, no scripts or external resources) that shades
// sentences and words by attention weight, as in the paper's figure: a sentence's
// bar is darker the more weight it gets; a word's background is its weight scaled by
// the square root of its sentence's weight.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "han/infer/predictor.h"
#include "han/text/tokenizer.h"

namespace han {

std::string html_escape(std::string_view text);

struct AttentionView {
  std::string heading;                                // e.g. a file name or "line 3"
  std::vector<std::pair<std::string, double>> top_k;  // (label, probability), best first
  std::string gold;                                   // "" when unknown
  TokenizedText words;                                // the words the model read (after caps)
  // The text as written and where each word came from in it: when given (spans.sentences
  // matching words), each sentence is shown as written with its words shaded; else the
  // words themselves.
  std::string text;
  TextSpans spans;
  Explanation explanation;
  // With a linear member (explanation.member present): the label its side explains ("" for
  // regression) and the names of explanation.member.words, in their order.
  std::string member_label;
  std::vector<std::string> member_words;
};

// One document's block (a <section>), for embedding in any page made with html_page().
std::string attention_section(const AttentionView& view);
// The shared stylesheet for attention sections.
std::string attention_css();
// A complete page: title, extra CSS, body HTML.
std::string html_page(const std::string& title, const std::string& css, const std::string& body);

}  // namespace han
