// Input bytes to UTF-8 (core/text_decoding.h): UTF-8 kept, other lines read as
// Windows-1252 (auto), strict U+FFFD (utf-8), Latin-1, Windows-1252; the counts and the
// one-line warnings; binary input; the encodings' names.
#include <catch2/catch.hpp>

#include <string>

#include "han/core/config_enums.h"
#include "han/core/error.h"
#include "han/core/text_decoding.h"

using han::TextDecoder;
using han::TextEncoding;

namespace {

std::string decoded(TextDecoder& d, std::string s) {
  d.decode(s);
  return s;
}

const std::string kLatin1 = "caf\xE9 cr\xE8me br\xFBl\xE9" "e \x93yes\x94";  // 0x93/0x94: curly quotes in 1252

}  // namespace

TEST_CASE("text decoding: auto keeps UTF-8 and reads other lines as Windows-1252", "[text_decoding]") {
  TextDecoder d;
  CHECK(decoded(d, "plain ascii") == "plain ascii");
  CHECK(decoded(d, "caf\xC3\xA9 \xE2\x80\x9Cok\xE2\x80\x9D") == "caf\xC3\xA9 \xE2\x80\x9Cok\xE2\x80\x9D");
  CHECK(decoded(d, kLatin1) == "caf\xC3\xA9 cr\xC3\xA8me br\xC3\xBBl\xC3\xA9" "e \xE2\x80\x9Cyes\xE2\x80\x9D");
  CHECK(d.texts() == 3);
  CHECK(d.not_utf8() == 1);
  const auto w = d.warnings("data/x.tsv");
  REQUIRE(w.size() == 1);
  CHECK(w[0] == "data/x.tsv: 1 of 3 lines is not UTF-8; read as Windows-1252 (--encoding to choose)");
}

TEST_CASE("text decoding: the Windows-1252 table, its five undefined bytes as C1 controls", "[text_decoding]") {
  CHECK(han::windows_1252(0x80) == 0x20AC);
  CHECK(han::windows_1252(0x85) == 0x2026);
  CHECK(han::windows_1252(0x91) == 0x2018);
  CHECK(han::windows_1252(0x92) == 0x2019);
  CHECK(han::windows_1252(0x96) == 0x2013);
  CHECK(han::windows_1252(0x9F) == 0x0178);
  for (unsigned char b : {0x81, 0x8D, 0x8F, 0x90, 0x9D}) CHECK(han::windows_1252(b) == b);
  for (int b = 0xA0; b <= 0xFF; ++b) CHECK(han::windows_1252(static_cast<unsigned char>(b)) == static_cast<char32_t>(b));
  for (int b = 0; b < 0x80; ++b) CHECK(han::windows_1252(static_cast<unsigned char>(b)) == static_cast<char32_t>(b));
}

TEST_CASE("text decoding: utf-8 is strict, each invalid byte U+FFFD, counted", "[text_decoding]") {
  TextDecoder d(TextEncoding::utf8);
  CHECK(decoded(d, "caf\xE9!") == "caf\xEF\xBF\xBD!");
  CHECK(decoded(d, "\xC3\xA9\xFF\xC3") == "\xC3\xA9\xEF\xBF\xBD\xEF\xBF\xBD");
  CHECK(decoded(d, "fine") == "fine");
  CHECK(d.not_utf8() == 2);
  const auto w = d.warnings("<stdin>");
  REQUIRE(w.size() == 1);
  CHECK(w[0] == "<stdin>: 2 of 3 lines are not UTF-8; invalid bytes read as U+FFFD (--encoding utf-8)");
}

TEST_CASE("text decoding: latin-1 and windows-1252 read every line so, without a warning", "[text_decoding]") {
  TextDecoder latin1(TextEncoding::latin1);
  CHECK(decoded(latin1, "\x93" "caf\xE9") == "\xC2\x93" "caf\xC3\xA9");
  CHECK(decoded(latin1, "caf\xC3\xA9") == "caf\xC3\x83\xC2\xA9");  // UTF-8 bytes read as Latin-1, as asked
  TextDecoder cp1252(TextEncoding::windows1252);
  CHECK(decoded(cp1252, "\x80 \x93x\x94") == "\xE2\x82\xAC \xE2\x80\x9Cx\xE2\x80\x9D");
  CHECK(latin1.warnings("f").empty());
  CHECK(cp1252.warnings("f").empty());
}

TEST_CASE("text decoding: a whole file is one text", "[text_decoding]") {
  TextDecoder d;
  CHECK(decoded(d, kLatin1) != kLatin1);
  const auto w = d.warnings("a.txt", "file");
  REQUIRE(w.size() == 1);
  CHECK(w[0] == "a.txt: not UTF-8; read as Windows-1252 (--encoding to choose)");
}

TEST_CASE("text decoding: NUL bytes or many control bytes look binary", "[text_decoding]") {
  TextDecoder text;
  decoded(text, "an ordinary line\twith a tab\r");
  CHECK_FALSE(text.looks_binary());
  CHECK(text.warnings("t").empty());

  TextDecoder nul;
  decoded(nul, std::string("go\0\0od", 6));
  CHECK(nul.with_nul() == 1);
  const auto w = nul.warnings("b.bin");
  REQUIRE(w.size() == 1);
  CHECK(w[0] == "b.bin: looks binary (NUL bytes); read as text anyway");

  TextDecoder controls;
  decoded(controls, "\x01\x02\x03\x04\x05\x06\x07\x08\x0E\x0F abc");
  CHECK(controls.looks_binary());
}

TEST_CASE("text decoding: encodings by name, any case and their other names", "[text_decoding]") {
  using han::parse_enum;
  CHECK(parse_enum<TextEncoding>("auto", "k") == TextEncoding::auto_);
  CHECK(parse_enum<TextEncoding>("UTF-8", "k") == TextEncoding::utf8);
  CHECK(parse_enum<TextEncoding>("utf8", "k") == TextEncoding::utf8);
  CHECK(parse_enum<TextEncoding>("latin-1", "k") == TextEncoding::latin1);
  CHECK(parse_enum<TextEncoding>("ISO-8859-1", "k") == TextEncoding::latin1);
  CHECK(parse_enum<TextEncoding>("windows-1252", "k") == TextEncoding::windows1252);
  CHECK(parse_enum<TextEncoding>("cp1252", "k") == TextEncoding::windows1252);
  CHECK_THROWS_WITH(parse_enum<TextEncoding>("ebcdic", "--encoding"),
                    "--encoding: must be one of \"auto\", \"utf-8\", \"latin-1\", \"windows-1252\", got \"ebcdic\"");
}
