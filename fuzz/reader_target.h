#pragma once
// The body shared by the reader targets: han::parse_examples (the parser behind
// read_examples) on arbitrary bytes, with and without required labels. Only han::Error
// may escape, its message must be one line, and required labels must be present.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "han/text/dataset.h"
#include "han/core/error.h"

inline int fuzz_reader(const std::uint8_t* data, std::size_t size, han::DataFormat format) {
  const std::string_view content(reinterpret_cast<const char*>(data), size);
  for (const bool require_labels : {true, false}) {
    try {
      const auto examples = han::parse_examples(content, "fuzz", format, require_labels);
      for (const han::Example& e : examples) {
        if (require_labels && (!e.has_label || e.label.empty())) std::abort();
      }
      han::collect_labels(examples);
    } catch (const han::Error& e) {
      if (std::string_view(e.what()).find('\n') != std::string_view::npos) std::abort();  // one line
    }
  }
  return 0;
}
