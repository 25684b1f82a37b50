#pragma once
// A whole file mapped read-only into memory (mmap): its pages are read from the page
// cache when first touched and shared with other processes mapping it, so opening a
// large file costs nothing until it is used.
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace han {

class MappedFile {
 public:
  // han::Error naming the path when it cannot be opened or mapped.
  static std::shared_ptr<const MappedFile> open(const std::string& path);
  // Maps the open regular file `fd` (left open), named `path` in errors.
  static std::shared_ptr<const MappedFile> map(int fd, const std::string& path);
  // A page read past the end of a mapped file that was cut short after it was mapped
  // (rewritten in place) ends han with exit code 1 and one line naming the file.
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const char* data() const { return static_cast<const char*>(data_); }
  std::size_t size() const { return size_; }
  std::string_view bytes() const { return {data(), size_}; }
  // Gives back the pages read so far (they stay in the page cache and are read again when
  // touched): after a check that reads the whole file, a process holds only what it uses.
  void release_pages() const;
  // The bytes of the mapping this process holds in memory now (Rss in /proc/self/smaps; 0
  // where that cannot be read).
  std::size_t resident_bytes() const;

 private:
  MappedFile(void* data, std::size_t size) : data_(data), size_(size) {}
  void* data_;
  std::size_t size_;
};

}  // namespace han
