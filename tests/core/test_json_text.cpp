// The shared text helpers of core/: JSON excerpts in messages, nlohmann's error reasons,
// the nesting check, null for non-finite numbers, UTF-8 rules and fixed-point numbers.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "han/core/json_text.h"
#include "han/core/number_text.h"
#include "han/core/utf8.h"

using nlohmann::json;

namespace {

json nested_arrays(int depth) {
  json v = 1;
  for (int i = 1; i < depth; ++i) {
    json outer = json::array();
    outer.push_back(std::move(v));  // moved, not copied: linear in depth
    v = std::move(outer);
  }
  return v;
}

std::string parse_error_reason(const std::string& text) {
  try {
    const json parsed = json::parse(text);
    FAIL("no parse error for " << text << ", got " << parsed.dump());
  } catch (const json::exception& e) {
    return han::json_error_reason(e);
  }
  return "";
}

// "é" is two bytes.
std::string repeat(const std::string& unit, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += unit;
  return out;
}

}  // namespace

TEST_CASE("quote_excerpt: a JSON string on one line, cut between characters", "[json_text]") {
  CHECK(han::quote_excerpt("plain") == "\"plain\"");
  CHECK(han::quote_excerpt("two\nlines\ttab") == "\"two\\nlines\\ttab\"");
  CHECK(han::quote_excerpt("bad \xff byte") == "\"bad \xEF\xBF\xBD byte\"");  // U+FFFD, no throw
  const std::string long_text = "a" + repeat("\xC3\xA9", 150);  // 301 bytes
  const std::string q = han::quote_excerpt(long_text);
  CHECK(q == "\"a" + repeat("\xC3\xA9", 99) + "\"...");  // 199 bytes: the 100th "é" would cut at 201
  CHECK(han::quote_excerpt(repeat("x", han::kMaxQuotedBytes)) == "\"" + repeat("x", 200) + "\"");
  CHECK(han::quote_excerpt("abcdef", 3) == "\"abc\"...");
}

TEST_CASE("json_excerpt: short JSON text, deep values by type", "[json_text]") {
  CHECK(han::json_excerpt(json(2.5)) == "2.5");
  CHECK(han::json_excerpt(json(true)) == "true");
  CHECK(han::json_excerpt(json("high")) == "\"high\"");
  CHECK(han::json_excerpt(json(repeat("y", 500))) == "\"" + repeat("y", 200) + "\"...");
  json big = json::array();
  for (int i = 0; i < 100; ++i) big.push_back(i);
  const std::string b = han::json_excerpt(big);
  CHECK(b.size() == 60);
  CHECK(b.substr(0, 5) == "[0,1,");
  CHECK(b.substr(57) == "...");
  CHECK(han::json_excerpt(nested_arrays(16)).substr(0, 3) == "[[[");
  CHECK(han::json_excerpt(nested_arrays(17)) == "a deeply nested array");
  CHECK(han::json_excerpt(nested_arrays(100000)) == "a deeply nested array");  // no recursion
}

TEST_CASE("json_nesting_exceeds counts levels without recursing", "[json_text]") {
  CHECK_FALSE(han::json_nesting_exceeds(json(1), 1));
  CHECK(han::json_nesting_exceeds(json::array({1}), 1));
  CHECK_FALSE(han::json_nesting_exceeds(json::array({1}), 2));
  CHECK_FALSE(han::json_nesting_exceeds(nested_arrays(64), 64));
  CHECK(han::json_nesting_exceeds(nested_arrays(65), 64));
  CHECK(han::json_nesting_exceeds(json{{"a", {{"b", nested_arrays(10)}}}}, 11));
  CHECK(han::json_nesting_exceeds(nested_arrays(200000), 64));
}

TEST_CASE("json_error_reason: the reason only, printable, without raw input", "[json_text]") {
  CHECK(parse_error_reason("{\"a\": \"cut") == "invalid string: missing closing quote");
  CHECK(parse_error_reason("") == "unexpected end of input; expected '[', '{', or a literal");
  CHECK(parse_error_reason("{\"lr\": NaN}") == "invalid literal");
  CHECK(parse_error_reason("{\"a\": 1e400}") == "number overflow parsing '1e400'");
  const std::string raw = parse_error_reason("{\"a\": \"x\xff\x01\"}");
  CHECK(raw.find("last read") == std::string::npos);
  for (char c : parse_error_reason("{\"\xff\x01")) CHECK((c >= 0x20 && c < 0x7F));
}

TEST_CASE("non-finite numbers are null in JSON and NaN back", "[json_text]") {
  CHECK(han::finite_or_null(0.25) == json(0.25));
  CHECK(han::finite_or_null(std::numeric_limits<double>::quiet_NaN()).is_null());
  CHECK(han::finite_or_null(-std::numeric_limits<double>::infinity()).is_null());
  CHECK(han::number_or_nan(json(0.25)) == 0.25);
  CHECK(std::isnan(han::number_or_nan(json(nullptr))));
  CHECK(std::isnan(han::number_or_nan(han::finite_or_null(std::nan("")))));
}

TEST_CASE("UTF-8: valid text, and every kind of invalid sequence", "[utf8]") {
  CHECK(han::is_valid_utf8(""));
  CHECK(han::is_valid_utf8("ascii \x7F"));
  CHECK(han::is_valid_utf8("\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x91\x8D \xF4\x8F\xBF\xBF"));  // é € 👍 U+10FFFF
  CHECK(han::first_invalid_utf8("ok\x80") == 2);      // stray continuation byte
  CHECK(han::first_invalid_utf8("\xC0\xAF") == 0);    // overlong 2-byte
  CHECK(han::first_invalid_utf8("\xE0\x80\xAF") == 0);  // overlong 3-byte
  CHECK(han::first_invalid_utf8("\xF0\x80\x80\xAF") == 0);  // overlong 4-byte
  CHECK(han::first_invalid_utf8("\xED\xA0\x80") == 0);  // surrogate U+D800
  CHECK(han::first_invalid_utf8("\xF4\x90\x80\x80") == 0);  // above U+10FFFF
  CHECK(han::first_invalid_utf8("\xF5\x80\x80\x80") == 0);
  CHECK(han::first_invalid_utf8("ab\xE2\x82") == 2);  // truncated at the end
  char32_t cp = 0;
  const auto* euro = reinterpret_cast<const unsigned char*>("\xE2\x82\xAC");
  CHECK(han::decode_utf8(euro, 3, cp) == 3);
  CHECK(cp == 0x20AC);
  CHECK(han::decode_utf8(euro, 2, cp) == 0);  // never reads past n
}

TEST_CASE("utf8_prefix never cuts a character in two", "[utf8]") {
  const std::string s = "a\xC3\xA9\xE2\x82\xAC";  // a é €: 1 + 2 + 3 bytes
  CHECK(han::utf8_prefix(s, 100) == s);
  CHECK(han::utf8_prefix(s, 6) == s);
  CHECK(han::utf8_prefix(s, 5) == "a\xC3\xA9");
  CHECK(han::utf8_prefix(s, 2) == "a");
  CHECK(han::utf8_prefix(s, 0).empty());
  CHECK(han::utf8_prefix("\xff\xfe\xfd", 2) == "\xff\xfe");  // invalid bytes count as one each
}

TEST_CASE("format_fixed: a fixed number of decimals, any magnitude", "[number_text]") {
  CHECK(han::format_fixed(0.5, 4) == "0.5000");
  CHECK(han::format_fixed(0.123456, 3) == "0.123");
  CHECK(han::format_fixed(-2, 1) == "-2.0");
  CHECK(han::format_fixed(2.5, 0) == "2");  // round half to even, as printf
  CHECK(han::format_fixed(1e40, 2).size() == 44);  // not cut at a buffer size
}
