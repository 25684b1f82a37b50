#include "han/infer/model_file.h"

#include <cstring>
#include <limits>
#include <set>

#include "han/core/error.h"
#include "han/core/hash.h"
#include "han/core/io.h"
#include "han/core/json_text.h"

namespace han {
namespace {

constexpr char kMagic[8] = {'H', 'A', 'N', 'M', 'O', 'D', 'E', 'L'};
constexpr std::size_t kMagicSize = sizeof kMagic;
// magic | version u32 | header length u64 | (header) | tensor count u32 | checksum u64
constexpr std::size_t kMinSize = kMagicSize + 4 + 8 + 4 + 8;

void put_u32(std::string& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

void put_u64(std::string& out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

std::uint64_t get_le(const char* p, int nbytes) {
  std::uint64_t v = 0;
  for (int i = 0; i < nbytes; ++i) {
    v |= static_cast<std::uint64_t>(static_cast<unsigned char>(p[i])) << (8 * i);
  }
  return v;
}

// Bounds-checked little-endian reader over [pos, end). Every read first checks that
// the bytes are there; `ok` turns false (and stays false) on the first short read.
class Reader {
 public:
  Reader(const std::string& bytes, std::size_t pos, std::size_t end)
      : data_(bytes.data()), pos_(pos), end_(end) {}

  bool ok() const { return ok_; }
  std::size_t pos() const { return pos_; }
  std::size_t remaining() const { return end_ - pos_; }

  bool has(std::uint64_t n) {
    if (!ok_ || n > remaining()) ok_ = false;
    return ok_;
  }
  std::uint32_t u32() { return has(4) ? static_cast<std::uint32_t>(take(4)) : 0; }
  std::uint64_t u64() { return has(8) ? take(8) : 0; }
  // Returns a pointer to n bytes and skips them, or nullptr when they are not there.
  const char* bytes(std::uint64_t n) {
    if (!has(n)) return nullptr;
    const char* p = data_ + pos_;
    pos_ += static_cast<std::size_t>(n);
    return p;
  }

 private:
  std::uint64_t take(int n) {
    const std::uint64_t v = get_le(data_ + pos_, n);
    pos_ += static_cast<std::size_t>(n);
    return v;
  }
  const char* data_;
  std::size_t pos_;
  std::size_t end_;
  bool ok_ = true;
};

// A real header nests about four levels (header, config, section, value).
constexpr std::size_t kMaxHeaderDepth = 64;

// Byte count of a rows x cols float32 tensor, or false if it exceeds `limit`.
bool tensor_bytes(std::uint32_t rows, std::uint32_t cols, std::size_t limit, std::uint64_t* n) {
  if (rows == 0 || cols == 0) {
    *n = 0;
    return true;
  }
  if (static_cast<std::uint64_t>(rows) > limit / 4 / cols) return false;
  *n = static_cast<std::uint64_t>(rows) * cols * 4;
  return *n <= limit;
}

// Walks the structure after the version field without allocating anything. Returns
// true when the body fits in [0, end); `body_end` is then the offset of the checksum.
bool walk(const std::string& bytes, std::size_t end, std::size_t* body_end) {
  Reader r(bytes, kMagicSize + 4, end);
  const std::uint64_t header_len = r.u64();
  r.bytes(header_len);
  const std::uint32_t count = r.u32();
  for (std::uint32_t t = 0; t < count && r.ok(); ++t) {
    const std::uint32_t name_len = r.u32();
    r.bytes(name_len);
    const std::uint32_t rows = r.u32();
    const std::uint32_t cols = r.u32();
    if (!r.ok()) break;
    std::uint64_t n = 0;
    if (!tensor_bytes(rows, cols, r.remaining(), &n)) return false;
    r.bytes(n);
  }
  if (!r.ok()) return false;
  *body_end = r.pos();
  return true;
}

}  // namespace

std::uint64_t model_checksum(const char* data, std::size_t n) { return fnv1a(data, n); }

std::string serialize_model(const nlohmann::json& header, const std::vector<NamedTensor>& tensors) {
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
  put_u32(out, kModelFormatVersion);
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
    // Column-major order, as Eigen stores it; each float as its IEEE-754 bits.
    const Scalar* data = t.value.data();
    for (Index i = 0; i < t.value.size(); ++i) {
      std::uint32_t bits;
      static_assert(sizeof bits == sizeof(Scalar), "Scalar must be float32");
      std::memcpy(&bits, &data[i], sizeof bits);
      put_u32(out, bits);
    }
  }
  put_u64(out, model_checksum(out.data(), out.size()));
  return out;
}

namespace {

struct ModelErrors {
  std::string who;
  Error truncated() const { return Error(who + ": model file is truncated"); }
  Error corrupted(const std::string& why) const { return Error(who + ": model file is corrupted (" + why + ")"); }
};

// Magic, version and checksum: nothing inside is trusted before these hold.
std::uint32_t check_envelope(const std::string& bytes, const ModelErrors& err) {
  if (bytes.size() < kMagicSize) {
    if (!bytes.empty() && std::memcmp(bytes.data(), kMagic, bytes.size()) == 0) throw err.truncated();
    throw Error(err.who + ": not a han model file");
  }
  if (std::memcmp(bytes.data(), kMagic, kMagicSize) != 0) throw Error(err.who + ": not a han model file");
  if (bytes.size() < kMagicSize + 4) throw err.truncated();
  const auto version = static_cast<std::uint32_t>(get_le(bytes.data() + kMagicSize, 4));
  if (version != kModelFormatVersion) {
    throw Error(err.who + ": model format version " + std::to_string(version) +
                " is not supported (this han reads version " + std::to_string(kModelFormatVersion) + ")");
  }
  if (bytes.size() < kMinSize) throw err.truncated();
  // The checksum covers everything before it. Verify it before trusting any length.
  const std::size_t body = bytes.size() - 8;
  if (model_checksum(bytes.data(), body) != get_le(bytes.data() + body, 8)) {
    // Tell a cut-short file from a damaged one: does the structure need more bytes?
    std::size_t body_end = 0;
    if (!walk(bytes, bytes.size(), &body_end) || body_end + 8 > bytes.size()) throw err.truncated();
    throw err.corrupted("checksum mismatch");
  }
  return version;
}

nlohmann::json read_header(Reader& r, const ModelErrors& err) {
  const std::uint64_t header_len = r.u64();
  const char* header_text = r.bytes(header_len);
  if (!header_text) throw err.corrupted("header length exceeds the file");
  nlohmann::json header = nlohmann::json::parse(header_text, header_text + header_len, nullptr,
                                                /*allow_exceptions=*/false);
  if (header.is_discarded() || !header.is_object()) throw err.corrupted("header is not a JSON object");
  // Callers copy and print parts of the header, which recurses: refuse absurd nesting.
  if (json_nesting_exceeds(header, kMaxHeaderDepth)) throw err.corrupted("header is nested too deeply");
  return header;
}

NamedTensor read_tensor(Reader& r, std::uint32_t index, const ModelErrors& err) {
  const std::uint32_t name_len = r.u32();
  const char* name = r.bytes(name_len);
  const std::uint32_t rows = r.u32();
  const std::uint32_t cols = r.u32();
  std::uint64_t n = 0;
  if (!r.ok() || !tensor_bytes(rows, cols, r.remaining(), &n)) {
    throw err.corrupted("tensor " + std::to_string(index) + " exceeds the file");
  }
  const char* data = r.bytes(n);
  NamedTensor nt;
  nt.name.assign(name, name_len);
  nt.value.resize(rows, cols);
  Scalar* dst = nt.value.data();
  for (std::uint64_t i = 0; i < n / 4; ++i) {
    const auto bits = static_cast<std::uint32_t>(get_le(data + 4 * i, 4));
    std::memcpy(&dst[i], &bits, sizeof bits);
  }
  return nt;
}

}  // namespace

ModelFileContents parse_model(const std::string& bytes, const std::string& origin) {
  const ModelErrors err{origin.empty() ? "model file" : origin};
  ModelFileContents out;
  out.version = check_envelope(bytes, err);
  // The checksum matches; still check every length (a hand-made file could lie).
  Reader r(bytes, kMagicSize + 4, bytes.size() - 8);
  out.header = read_header(r, err);
  const std::uint32_t count = r.u32();
  if (!r.ok()) throw err.corrupted("missing tensor count");
  std::set<std::string> names;
  for (std::uint32_t t = 0; t < count; ++t) {
    NamedTensor nt = read_tensor(r, t, err);
    if (!names.insert(nt.name).second) throw err.corrupted("duplicate tensor \"" + nt.name + "\"");
    out.tensors.push_back(std::move(nt));
  }
  if (r.remaining() != 0) throw err.corrupted("unexpected bytes after the last tensor");
  return out;
}

void save_model_file(const std::string& path, const nlohmann::json& header,
                     const std::vector<NamedTensor>& tensors) {
  write_file_atomically(path, serialize_model(header, tensors));
}

ModelFileContents load_model_file(const std::string& path) {
  ReadOptions options;
  options.expected_prefix = std::string_view(kMagic, kMagicSize);  // /dev/zero: refused at once
  return parse_model(read_file(path, options), path);
}

}  // namespace han
