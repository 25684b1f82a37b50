#include "han/infer/model_file.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <set>
#include <string_view>

#include <xxhash.h>

#include "han/core/error.h"
#include "han/core/hash.h"
#include "han/core/io.h"
#include "han/core/json_text.h"
#include "han/core/mapped_file.h"
#include "model_file_parts.h"
#include "model_file_v3.h"

// Tensor data is read straight into Eigen's storage: float32 bits in file order.
#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "han's model files are read on little-endian hosts only"
#endif

namespace han {
namespace {

using namespace model_file_parts;

// magic | version u32 | header length u64 | (header) | tensor count u32 | checksum u64
constexpr std::size_t kMinSize = kMagicSize + 4 + 8 + 4 + 8;
constexpr std::uint32_t kFnvVersion = 1;  // version 1 files carry an FNV-1a checksum
constexpr std::uint32_t kStreamedVersion = 2;  // the last format read front to back

// Magic and version, from the first min(size, 12) bytes of a file of `size` bytes: checked
// before anything else, so a foreign file or another version is named as such whatever
// its checksum.
std::uint32_t format_version(const char* prefix, std::size_t size, const ModelErrors& err) {
  const std::size_t n = std::min(size, kMagicSize + 4);
  if (size == 0 || std::memcmp(prefix, kMagic, std::min(n, kMagicSize)) != 0)
    throw Error(err.who + ": not a han model file");
  if (n < kMagicSize + 4) throw err.truncated();
  const auto version = static_cast<std::uint32_t>(get_le(prefix + kMagicSize, 4));
  if (version < kFnvVersion || version > kModelFormatVersion) {
    throw Error(err.who + ": model format version " + std::to_string(version) + " is not supported (this han reads versions " +
                std::to_string(kFnvVersion) + " to " + std::to_string(kModelFormatVersion) + ")");
  }
  return version;
}

// The checksum of the bytes before it, fed piece by piece as they are read. Version 1
// used FNV-1a 64, one multiply per byte (~15 ms for a 14 MB model); version 2 uses
// XXH3-64, which runs at memory speed.
class BodyHash {
 public:
  explicit BodyHash(std::uint32_t version) : fnv_(version == kFnvVersion), state_(XXH3_createState()) {
    HAN_ASSERT(state_ != nullptr);
    XXH3_64bits_reset(state_.get());
  }
  void update(const char* data, std::size_t n) {
    if (!fnv_) {
      XXH3_64bits_update(state_.get(), data, n);
      return;
    }
    fnv_value_.add(data, n);
  }
  std::uint64_t value() const { return fnv_ ? fnv_value_.value() : XXH3_64bits_digest(state_.get()); }

 private:
  struct FreeState {
    void operator()(XXH3_state_t* s) const { XXH3_freeState(s); }
  };
  bool fnv_;
  Fnv1a fnv_value_;
  std::unique_ptr<XXH3_state_t, FreeState> state_;
};

}  // namespace

std::uint64_t model_checksum(std::uint32_t version, const char* data, std::size_t n) {
  BodyHash h(version);
  h.update(data, n);
  return h.value();
}

std::string serialize_model(const nlohmann::json& header, const std::vector<NamedTensor>& tensors,
                            std::uint32_t version) {
  HAN_ASSERT(version == model_v3::kVersion || version == kStreamedVersion);
  if (version == model_v3::kVersion) return model_v3::serialize(header, tensors);
  std::string header_text;
  try {
    header_text = header.dump();
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string("cannot serialise the model header: ") + e.what(), 1);
  }
  HAN_ASSERT(tensors.size() <= std::numeric_limits<std::uint32_t>::max());

  std::size_t total = kMinSize + header_text.size();
  for (const auto& t : tensors) total += 12 + t.name.size() + 4 * static_cast<std::size_t>(t.value.size());
  std::string out;
  out.reserve(total);

  out.append(kMagic, kMagicSize);
  put_u32(out, kStreamedVersion);
  put_u64(out, header_text.size());
  out += header_text;
  put_u32(out, static_cast<std::uint32_t>(tensors.size()));
  for (const auto& t : tensors) {
    HAN_ASSERT(t.name.size() <= std::numeric_limits<std::uint32_t>::max());
    HAN_ASSERT(t.value.rows() <= std::numeric_limits<std::uint32_t>::max());
    HAN_ASSERT(t.value.cols() <= std::numeric_limits<std::uint32_t>::max());
    put_u32(out, static_cast<std::uint32_t>(t.name.size()));
    out += t.name;
    put_u32(out, static_cast<std::uint32_t>(t.value.rows()));
    put_u32(out, static_cast<std::uint32_t>(t.value.cols()));
    // Column-major order, as Eigen stores it; each float as its IEEE-754 bits (little-endian host).
    static_assert(sizeof(Scalar) == 4, "Scalar must be float32");
    if (t.value.size() > 0)
      out.append(reinterpret_cast<const char*>(t.value.data()), 4 * static_cast<std::size_t>(t.value.size()));
  }
  put_u64(out, model_checksum(kStreamedVersion, out.data(), out.size()));
  return out;
}

namespace {

// The bytes of a model file, read once from the front: from memory, or straight from
// the file into the tensors' storage, so loading never holds a second copy of a model.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual std::size_t remaining() const = 0;
  // Copies the next n <= remaining() bytes into dst.
  virtual void read(char* dst, std::size_t n) = 0;
};

class MemorySource : public ByteSource {
 public:
  explicit MemorySource(std::string_view bytes) : bytes_(bytes) {}
  std::size_t remaining() const override { return bytes_.size() - pos_; }
  void read(char* dst, std::size_t n) override {
    if (n > 0) std::memcpy(dst, bytes_.data() + pos_, n);
    pos_ += n;
  }

 private:
  std::string_view bytes_;
  std::size_t pos_ = 0;
};

// Maps every whole page of [dst, dst + n) writable in one call. A fresh tensor's pages
// otherwise fault one by one as the read fills them: on these VMs about 3 µs each, most of
// a one-line prediction's start-up with a 10 MB model. Best effort: kernels before 5.14
// refuse it and the pages fault as before.
void prefault_for_writing(char* dst, std::size_t n) {
#ifdef MADV_POPULATE_WRITE
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto begin = (reinterpret_cast<std::uintptr_t>(dst) + page - 1) / page * page;
  const auto end = (reinterpret_cast<std::uintptr_t>(dst) + n) / page * page;
  if (end <= begin) return;
  ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
  ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_WRITE);
#else
  (void)dst;
  (void)n;
#endif
}

class FileSource : public ByteSource {
 public:
  FileSource(std::FILE* f, std::size_t size, std::string path) : f_(f), left_(size), path_(std::move(path)) {}
  std::size_t remaining() const override { return left_; }
  void read(char* dst, std::size_t n) override {
    prefault_for_writing(dst, n);
    if (std::fread(dst, 1, n, f_) != n) {
      // The file shrank or failed under us after its size was taken.
      throw Error(path_ + ": cannot read: " + (std::ferror(f_) ? std::strerror(errno) : "the file changed while it was read"), 1);
    }
    left_ -= n;
  }

 private:
  std::FILE* f_;
  std::size_t left_;
  std::string path_;
};

// Reads the file front to back, hashing every byte of the body. Nothing read is trusted
// until the checksum holds: a length that points past the end is "truncated" when the
// checksum is wrong (the usual cut-short file) and "corrupted" when it is right (a
// hand-made file that lies).
class ModelParser {
 public:
  ModelParser(ByteSource& src, const ModelErrors& err) : src_(src), err_(err) {}

  ModelFileContents parse() {
    ModelFileContents out;
    out.version = read_envelope();
    hash_ = std::make_unique<BodyHash>(out.version);
    hash_->update(prefix_, sizeof prefix_);
    const std::uint64_t header_len = u64();
    if (header_len > left()) fail("header length exceeds the file");
    std::string header_text(static_cast<std::size_t>(header_len), '\0');
    take(header_text.data(), header_text.size());
    const std::uint32_t count = u32("missing tensor count");
    for (std::uint32_t t = 0; t < count; ++t) out.tensors.push_back(read_tensor(t));
    check_trailer();
    out.header = parse_header(header_text, err_);
    std::set<std::string> names;
    for (const NamedTensor& nt : out.tensors)
      if (!names.insert(nt.name).second) throw err_.corrupted("duplicate tensor \"" + nt.name + "\"");
    return out;
  }

 private:
  // Magic and version: checked before anything else, so a foreign file or another
  // version is named as such whatever its checksum.
  std::uint32_t read_envelope() {
    const std::size_t size = src_.remaining();
    const std::size_t n = std::min(size, kMagicSize + 4);
    src_.read(prefix_, n);
    const std::uint32_t version = format_version(prefix_, size, err_);
    HAN_ASSERT(version <= kStreamedVersion);
    if (size < kMinSize) throw err_.truncated();
    return version;
  }

  void take(char* dst, std::size_t n) {
    if (n == 0) return;  // an empty tensor's storage is null: no memcpy/fread of nothing into it
    src_.read(dst, n);
    hash_->update(dst, n);
  }
  // Body bytes not yet read: the source less the trailing checksum.
  std::size_t left() const { return src_.remaining() - 8; }
  std::uint64_t le(int nbytes, const char* what) {
    if (static_cast<std::size_t>(nbytes) > left()) fail(what);
    char b[8];
    take(b, static_cast<std::size_t>(nbytes));
    return get_le(b, nbytes);
  }
  std::uint32_t u32(const char* what = "a length exceeds the file") {
    return static_cast<std::uint32_t>(le(4, what));
  }
  std::uint64_t u64() { return le(8, "header length exceeds the file"); }

  NamedTensor read_tensor(std::uint32_t index) {
    const std::string what = "tensor " + std::to_string(index) + " exceeds the file";
    NamedTensor nt;
    const std::uint32_t name_len = u32(what.c_str());
    if (name_len > left()) fail(what);
    nt.name.resize(name_len);
    take(nt.name.data(), name_len);
    const std::uint32_t rows = u32(what.c_str());
    const std::uint32_t cols = u32(what.c_str());
    std::uint64_t n = 0;
    if (!tensor_bytes(rows, cols, left(), &n)) fail(what);
    nt.value.resize(rows, cols);
    take(reinterpret_cast<char*>(nt.value.data()), static_cast<std::size_t>(n));
    return nt;
  }

  // After the last tensor come exactly the 8 checksum bytes.
  void check_trailer() {
    if (left() > 0) fail("unexpected bytes after the last tensor", /*cut_short=*/false);
    if (!checksum_holds()) throw err_.corrupted("checksum mismatch");
  }

  // Hashes what is left of the body and compares with the stored checksum.
  bool checksum_holds() {
    char buf[1 << 16];
    for (std::size_t n = std::min(left(), sizeof buf); n > 0; n = std::min(left(), sizeof buf)) take(buf, n);
    char b[8];
    src_.read(b, 8);
    return get_le(b, 8) == hash_->value();
  }

  // The structure does not fit the file: a lying file when the checksum holds, else
  // cut short (the structure wants more bytes than there are) or damaged.
  [[noreturn]] void fail(const std::string& why, bool cut_short = true) {
    if (checksum_holds()) throw err_.corrupted(why);
    if (cut_short) throw err_.truncated();
    throw err_.corrupted("checksum mismatch");
  }

  ByteSource& src_;
  const ModelErrors& err_;
  char prefix_[kMagicSize + 4] = {};
  std::unique_ptr<BodyHash> hash_;
};

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

}  // namespace

ModelFileContents parse_model(const std::string& bytes, const std::string& origin) {
  const ModelErrors err{origin.empty() ? "model file" : origin};
  if (format_version(bytes.data(), bytes.size(), err) == model_v3::kVersion)
    return model_v3::parse(bytes.data(), bytes.size(), err.who, {}, nullptr);
  MemorySource src(bytes);
  return ModelParser(src, err).parse();
}

void save_model_file(const std::string& path, const nlohmann::json& header,
                     const std::vector<NamedTensor>& tensors) {
  write_file_atomically(path, serialize_model(header, tensors));
}

ModelFileContents load_model_file(const std::string& path, const KeepInPlace& in_place) {
  std::unique_ptr<std::FILE, FileCloser> f(open_for_reading(path));
  struct stat st;
  if (::fstat(::fileno(f.get()), &st) == 0 && S_ISREG(st.st_mode)) {
    const ModelErrors err{path};
    const auto size = static_cast<std::size_t>(st.st_size);
    char prefix[kMagicSize + 4] = {};
    const std::size_t n = std::min(size, sizeof prefix);
    if (std::fread(prefix, 1, n, f.get()) != n) throw Error(path + ": cannot read: " + std::strerror(errno), 1);
    if (format_version(prefix, size, err) != model_v3::kVersion) {
      std::rewind(f.get());
      FileSource src(f.get(), size, path);
      return ModelParser(src, err).parse();
    }
    if (in_place) {
      // The descriptor already open, so the file checked is the file mapped.
      const std::shared_ptr<const MappedFile> file = MappedFile::map(::fileno(f.get()), path);
      if (format_version(file->data(), file->size(), err) != model_v3::kVersion)
        throw Error(path + ": cannot read: the file changed while it was read", 1);
      return model_v3::parse(file->data(), file->size(), path, in_place, file);
    }
    // Copied whole: read, not mapped, so a file cut short while it loads is an error, not a
    // signal (han serve reloads while it answers).
    std::rewind(f.get());
    std::string bytes(size, '\0');
    if (size > 0 && std::fread(bytes.data(), 1, size, f.get()) != size)
      throw Error(path + ": cannot read: the file changed while it was read", 1);
    return parse_model(bytes, path);
  }
  // A pipe or device: read it whole (stopping at once if it is not a model), then parse.
  f.reset();
  ReadOptions options;
  options.expected_prefix = std::string_view(kMagic, kMagicSize);  // /dev/zero: refused at once
  return parse_model(read_file(path, options), path);
}

}  // namespace han
