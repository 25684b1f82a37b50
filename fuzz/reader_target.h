#pragma once
// The body shared by the reader targets: the input becomes a file that han::read_examples
// reads the way it reads any data file (LineReader, byte-order mark, line breaks, caps),
// with and without required labels. Only han::Error may escape, its message must be one
// line, required labels must be present, every example must name a line of the file,
// and a fasttext/tsv text can hold no line break (they all end lines in data files).
// The file is a memfd reached through /proc/self/fd: nothing touches the disk or is
// left behind when the fuzzer stops.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "han/core/error.h"
#include "han/text/dataset.h"
#include "han/text/encoding.h"

namespace han_fuzz {

// The path of a file holding exactly these bytes (the same file, rewritten, every call).
inline const std::string& file_with(const std::uint8_t* data, std::size_t size) {
  static const int fd = ::memfd_create("han_fuzz_reader", MFD_CLOEXEC);
  static const std::string path = "/proc/self/fd/" + std::to_string(fd);
  if (fd < 0 || ::ftruncate(fd, 0) != 0) std::abort();
  for (std::size_t done = 0; done < size;) {
    const ssize_t n = ::pwrite(fd, data + done, size - done, static_cast<off_t>(done));
    if (n <= 0) std::abort();
    done += static_cast<std::size_t>(n);
  }
  return path;
}

// True if `source` is "<path>:<n>" with 1 <= n <= the number of lines the bytes can hold.
inline bool names_a_line(const std::string& source, const std::string& path, std::size_t size) {
  if (source.compare(0, path.size() + 1, path + ":") != 0) return false;
  const std::string number = source.substr(path.size() + 1);
  if (number.empty() || number.find_first_not_of("0123456789") != std::string::npos) return false;
  const unsigned long long n = std::strtoull(number.c_str(), nullptr, 10);
  return n >= 1 && n <= size + 1;
}

}  // namespace han_fuzz

inline int fuzz_reader(const std::uint8_t* data, std::size_t size, han::DataFormat format) {
  const std::string& path = han_fuzz::file_with(data, size);
  for (const bool require_labels : {true, false}) {
    try {
      const auto examples = han::read_examples(path, format, require_labels);
      for (const han::Example& e : examples) {
        if (require_labels && (!e.has_label || e.label.empty())) std::abort();
        if (e.has_label == e.label.empty()) std::abort();
        // gzip input (first bytes 1f 8b) decompresses to more lines than its own size holds.
        const bool gzip = size >= 2 && data[0] == 0x1f && data[1] == 0x8b;
        if (!han_fuzz::names_a_line(e.source, path, gzip ? SIZE_MAX - 1 : size)) std::abort();
        if (format != han::DataFormat::jsonl && e.text.find_first_of("\r\n") != std::string::npos) std::abort();
      }
      han::collect_labels(examples);
    } catch (const han::Error& e) {
      if (std::string_view(e.what()).find('\n') != std::string_view::npos) std::abort();  // one line
    }
  }
  return 0;
}
