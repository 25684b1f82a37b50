// libFuzzer target: han serve's request reader (han/serve/request.h), on any bytes as a
// request body. Only RequestError may escape, with status 400 or 413 and a one-line
// message; an accepted request has 1 to max_texts texts, none blank, all valid UTF-8,
// and its options in range.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "han/core/utf8.h"
#include "han/serve/request.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  constexpr std::size_t kMaxTexts = 8;
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  try {
    const han::serve::Request r = han::serve::parse_request(body, kMaxTexts);
    if (r.texts.empty() || r.texts.size() > kMaxTexts || (r.single && r.texts.size() != 1)) std::abort();
    for (const std::string& t : r.texts)
      if (!han::is_valid_utf8(t) || t.find_first_not_of(" \t\r\n") == std::string::npos) std::abort();
    if (r.top_k < 0 || r.threshold > 1 || (r.threshold < 0 && r.threshold != -1)) std::abort();
  } catch (const han::serve::RequestError& e) {
    if (e.status() != 400 && e.status() != 413) std::abort();
    if (std::string_view(e.what()).find('\n') != std::string_view::npos) std::abort();  // one line
  }
  return 0;
}
