#pragma once
// The body of a POST /v1/predict or /v1/explain request, read and checked before any work
// is done for it: {"text": "..."} or {"texts": ["...", ...]}, with optional "top_k" and
// "threshold". Anything else is refused with the HTTP status that says why (400, or 413
// for too many texts) and a one-line message.
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace han::serve {

class RequestError : public std::runtime_error {
 public:
  RequestError(int status, const std::string& message) : std::runtime_error(message), status_(status) {}
  int status() const { return status_; }

 private:
  int status_;
};

struct Request {
  std::vector<std::string> texts;  // each valid UTF-8 and not blank
  bool single = false;             // {"text": ...}: answered with one object, not a list
  int top_k = 0;                   // 0: not given
  double threshold = -1;           // < 0: not given
};

// Deeper JSON than this is refused unread (a request has two levels).
constexpr std::size_t kMaxRequestDepth = 16;

// Throws RequestError for anything but a well-formed request of at most max_texts texts.
Request parse_request(std::string_view body, std::size_t max_texts);

}  // namespace han::serve
