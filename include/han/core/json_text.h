#pragma once
// JSON as text for people: one-line dumps that survive invalid UTF-8, excerpts of bad
// input inside error messages, nlohmann's error reasons made short and printable, the
// nesting check that keeps recursion on hostile files bounded, and non-finite numbers
// (which JSON cannot hold) written as null and read back as NaN.
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace han {

// One line of JSON; invalid UTF-8 (from a file or the command line) becomes U+FFFD
// instead of an exception. For json and ordered_json alike.
template <class Json>
std::string dump_one_line(const Json& j) {
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

// The most bytes of a string quoted inside a message; longer ones are cut, then "...".
constexpr std::size_t kMaxQuotedBytes = 200;

// `s` as a JSON string literal for a message: control characters escaped (the message
// stays one line), invalid UTF-8 replaced, at most max_bytes of s (cut between
// characters) followed by "..." when cut.
std::string quote_excerpt(std::string_view s, std::size_t max_bytes = kMaxQuotedBytes);

// A JSON value for a message ("got ..."): a string as quote_excerpt; another value as
// its JSON text, cut to 60 characters; a deeply nested one only by its type.
std::string json_excerpt(const nlohmann::json& v);

// Whether v nests deeper than max_depth levels (a scalar is one level). Checked without
// recursion: a hostile file may nest 100000 arrays, and recursing would overflow the stack.
bool json_nesting_exceeds(const nlohmann::json& v, std::size_t max_depth);

// The reason of a nlohmann exception, e.g. "invalid string: missing closing quote", without
// the "[json.exception...]" tag, the location (callers say it better), the "syntax error
// while parsing ... - " preamble and the "last read" excerpt (it may hold raw bytes);
// printable ASCII only.
std::string json_error_reason(const nlohmann::json::exception& e);

// x, or null when x is NaN or infinite (JSON has no such numbers).
nlohmann::json finite_or_null(double x);
// The reverse: a number, or NaN for null.
double number_or_nan(const nlohmann::json& v);

}  // namespace han
