#include "han/core/json_text.h"

#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "han/core/utf8.h"

namespace han {
namespace {

using nlohmann::json;

// Values nested deeper than this are named by their type: printing them recurses.
constexpr std::size_t kMaxShownDepth = 16;
constexpr std::size_t kMaxShownChars = 60;

}  // namespace

std::string quote_excerpt(std::string_view s, std::size_t max_bytes) {
  const std::string_view kept = utf8_prefix(s, max_bytes);
  std::string out = dump_one_line(json(std::string(kept)));
  if (kept.size() < s.size()) out += "...";
  return out;
}

std::string json_excerpt(const json& v) {
  if (v.is_string()) return quote_excerpt(v.get_ref<const std::string&>());
  if (v.is_structured() && json_nesting_exceeds(v, kMaxShownDepth)) {
    return std::string("a deeply nested ") + v.type_name();
  }
  const std::string text = dump_one_line(v);
  if (text.size() <= kMaxShownChars) return text;
  return std::string(utf8_prefix(text, kMaxShownChars - 3)) + "...";
}

bool json_nesting_exceeds(const json& v, std::size_t max_depth) {
  std::vector<std::pair<const json*, std::size_t>> todo{{&v, 1}};
  while (!todo.empty()) {
    const auto [j, depth] = todo.back();
    todo.pop_back();
    if (depth > max_depth) return true;
    if (j->is_structured()) {
      for (const auto& child : *j) todo.emplace_back(&child, depth + 1);
    }
  }
  return false;
}

std::string json_error_reason(const json::exception& e) {
  // e.what(): "[json.exception.parse_error.101] parse error at line 1, column 8: syntax
  // error while parsing object - unexpected end of input; expected '}'", or for other
  // errors "[json.exception.out_of_range.406] number overflow parsing '1e400'".
  const std::string_view what = e.what();
  std::string_view reason = what;
  if (const auto colon = what.find(": "); colon != std::string_view::npos &&
                                          what.find("parse error") != std::string_view::npos) {
    reason = what.substr(colon + 2);
  } else if (const auto bracket = what.find("] "); bracket != std::string_view::npos) {
    reason = what.substr(bracket + 2);
  }
  if (const auto dash = reason.find(" - "); reason.substr(0, 13) == "syntax error " &&
                                            dash != std::string_view::npos) {
    reason = reason.substr(dash + 3);
  }
  std::string out(reason);
  if (const auto last_read = out.find("; last read: "); last_read != std::string::npos) {
    const auto expected = out.rfind("; expected ");  // the last: the excerpt may hold one
    out = out.substr(0, last_read) + (expected == std::string::npos ? std::string() : out.substr(expected));
  }
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7F) c = '?';
  }
  return out;
}

json finite_or_null(double x) { return std::isfinite(x) ? json(x) : json(nullptr); }

double number_or_nan(const json& v) {
  return v.is_null() ? std::numeric_limits<double>::quiet_NaN() : v.get<double>();
}

}  // namespace han
