#include "han/study/html.h"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <vector>

#include "han/core/number_text.h"

namespace han {

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string attention_css() {
  return R"(section.doc{border:1px solid #ccd;border-radius:6px;margin:1em 0;padding:.6em 1em;background:#fff}
section.doc h2{font-size:1em;margin:.2em 0 .5em 0}
.pred{font-weight:600}.gold{color:#555}.topk{color:#555;font-size:.9em}
.sent{display:flex;align-items:flex-start;margin:.15em 0}
.sbar{flex:0 0 3.2em;font:11px monospace;color:#fff;text-align:right;padding:2px 4px;margin-right:.6em;border-radius:3px}
.words{line-height:1.9}
.w{padding:1px 2px;border-radius:3px}
.legend{font-size:.85em;color:#555}
.cut{color:#a33;font-size:.85em;font-style:italic}
.member{margin:.5em 0 0 0;padding:.3em .6em;border-left:3px solid #2a8;background:#f3faf7}
.for{color:#161}.against{color:#a33})";
}

namespace {

// "0.974" for a label's probability, "7.21" for a regression answer.
std::string part_answer(const AttentionView& v, double answer) {
  return v.member_label.empty() ? format_fixed(answer, 2) : format_fixed(answer, 3);
}

// The linear member's side of the answer: how each part answered, with its share, and the
// words that weighed most in the member's answer (for the label, then against it).
std::string member_block(const AttentionView& v) {
  const MemberExplanation& m = v.explanation.member;
  if (!m.present()) return "";
  const std::string what = v.member_label.empty() ? "the value" : html_escape(v.member_label);
  std::string out = "<div class=\"member\">The shading above is the HAN's part of the answer (weight " +
                    format_fixed(1 - m.share, 2) + "): it answers " + what + " " + part_answer(v, m.han) +
                    ". The linear member's part (weight " + format_fixed(m.share, 2) + ") answers " + what + " " +
                    part_answer(v, m.member) + ".";
  std::string pro, con;
  for (std::size_t i = 0; i < m.words.size() && i < v.member_words.size(); ++i) {
    const float c = m.words[i].value;
    std::string& list = c > 0 ? pro : con;
    list += (list.empty() ? "" : ", ") + html_escape(v.member_words[i]) + " " + (c > 0 ? "+" : "") + format_fixed(c, 3);
  }
  const std::string towards = v.member_label.empty() ? "raise the value" : "for " + what;
  const std::string away = v.member_label.empty() ? "lower it" : "against";
  if (!pro.empty()) out += "<br>Its words " + towards + ": <span class=\"for\">" + pro + "</span>";
  if (!con.empty()) out += "<br>Its words " + away + ": <span class=\"against\">" + con + "</span>";
  return out + "</div>";
}

}  // namespace

std::string attention_section(const AttentionView& v) {
  std::string out = "<section class=\"doc\"><h2>" + html_escape(v.heading) + "</h2><p>";
  if (!v.top_k.empty())
    out += "<span class=\"pred\">" + html_escape(v.top_k[0].first) + "</span> " + format_fixed(v.top_k[0].second, 3);
  if (!v.gold.empty()) out += " <span class=\"gold\">(gold: " + html_escape(v.gold) + ")</span>";
  if (v.top_k.size() > 1) {
    out += " <span class=\"topk\">then";
    for (std::size_t i = 1; i < v.top_k.size(); ++i)
      out += " " + html_escape(v.top_k[i].first) + " " + format_fixed(v.top_k[i].second, 3);
    out += "</span>";
  }
  out += "</p>";
  const auto& sw = v.explanation.sentence_weights;
  if (sw.empty()) out += "<p class=\"legend\">(no words)</p>";
  const double max_s = sw.empty() ? 1.0 : std::max(1e-12, static_cast<double>(*std::max_element(sw.begin(), sw.end())));
  // Word shade: sqrt(sentence weight) * word weight (the paper's normalisation), scaled so
  // the document's most attended word is fully shaded.
  double max_w = 1e-12;
  for (std::size_t s = 0; s < sw.size(); ++s)
    for (float w : v.explanation.word_weights[s]) max_w = std::max(max_w, std::sqrt(static_cast<double>(sw[s])) * w);
  // The text as written when its spans fit the words (a model's page; not the study's).
  bool as_written = !v.text.empty() && v.spans.sentences.size() == v.words.size();
  for (std::size_t s = 0; as_written && s < v.words.size(); ++s) {
    as_written = v.spans.sentences[s].size() == v.words[s].size();
    for (const TokenSpan& span : v.spans.sentences[s])
      if (span.begin > span.end || span.end > v.text.size()) as_written = false;
  }
  const std::string_view text = v.text;
  for (std::size_t s = 0; s < sw.size() && s < v.words.size(); ++s) {
    const double shade = sw[s] / max_s;
    out += "<div class=\"sent\"><span class=\"sbar\" title=\"sentence weight " + format_fixed(sw[s], 4) +
           "\" style=\"background:rgba(200,30,30," + format_fixed(0.15 + 0.85 * shade, 3) + ")\">" +
           format_fixed(sw[s], 2) + "</span><span class=\"words\">";
    const auto& ww = v.explanation.word_weights[s];
    const auto word = [&](std::size_t w, std::string_view shown) {
      const double intensity = std::sqrt(static_cast<double>(sw[s])) * ww[w] / max_w;
      return "<span class=\"w\" title=\"" + format_fixed(ww[w], 4) + "\" style=\"background:rgba(30,90,220," +
             format_fixed(intensity, 3) + (intensity > 0.6 ? ");color:#fff" : ")") + "\">" + html_escape(shown) + "</span>";
    };
    if (as_written) {
      // The sentence as written: each word's characters shaded, what lies between them
      // (spaces, markup) as it is. A word with an empty span was made from the characters
      // of the one before it ("…" is three periods): that one shows them.
      const std::vector<TokenSpan>& spans = v.spans.sentences[s];
      std::size_t pos = spans.empty() ? 0 : spans[0].begin;
      for (std::size_t w = 0; w < spans.size() && w < ww.size(); ++w) {
        const TokenSpan& span = spans[w];
        if (span.begin > pos) out += html_escape(text.substr(pos, span.begin - pos));
        if (span.end > span.begin) out += word(w, text.substr(span.begin, span.end - span.begin));
        pos = std::max(pos, span.end);
      }
      if (s < v.spans.cut.size() && v.spans.cut[s])
        out += " <span class=\"cut\" title=\"the HAN reads at most tokenizer.max_words words a sentence\">[cut: the HAN did "
               "not read the rest of the sentence]</span>";
    } else {
      for (std::size_t w = 0; w < v.words[s].size() && w < ww.size(); ++w) out += word(w, v.words[s][w]) + " ";
    }
    out += "</span></div>";
  }
  if (as_written && v.spans.truncated)
    out += "<p class=\"legend cut\">[cut: the HAN did not read the text after this: it reads at most "
           "tokenizer.max_sentences sentences]</p>";
  return out + member_block(v) + "</section>\n";
}

std::string html_page(const std::string& title, const std::string& css, const std::string& body) {
  return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + html_escape(title) +
         "</title><style>body{font-family:system-ui,sans-serif;max-width:60em;margin:1em auto;padding:0 1em;"
         "color:#222;background:#f6f6f8}\n" +
         css + "</style></head><body>\n" + body + "</body></html>\n";
}

}  // namespace han
