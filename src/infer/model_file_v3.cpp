#include "model_file_v3.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>
#include <set>

#include <xxhash.h>

#include "han/core/error.h"
#include "han/text/vocab.h"
#include "model_file_parts.h"

namespace han::model_v3 {
namespace {

using namespace model_file_parts;

std::size_t aligned(std::size_t n) { return (n + kAlignment - 1) / kAlignment * kAlignment; }

std::size_t tensor_size(const NamedTensor& t) { return 4 * static_cast<std::size_t>(t.value.size()); }

constexpr std::size_t kNowhere = ~std::size_t{0};  // an empty tensor's place: offset 0

// The data region's chunks, each checked against its checksum the first time a reader
// touches it. Threads may check one chunk at once: both compute the same answer. The
// checksums are read where the directory holds them (checked with it), not copied: a
// large model has tens of thousands and a one-line prediction reads a few hundred.
class ChunkCheck : public ByteCheck {
 public:
  struct Place {
    std::size_t begin, end;  // in the data region
    std::string name;
  };
  // `sums`: the chunks' little-endian XXH3-64 values, 8 bytes each.
  ChunkCheck(const char* region, std::size_t region_start, std::size_t bytes, std::uint32_t chunk, const char* sums,
             std::size_t chunks, std::vector<Place> places, ModelErrors err, std::shared_ptr<const MappedFile> file)
      : region_(region), region_start_(region_start), bytes_(bytes), chunk_(chunk), sums_(sums), chunks_(chunks),
        places_(std::move(places)), done_(new std::atomic<bool>[chunks]), err_(std::move(err)), file_(std::move(file)) {
    for (std::size_t c = 0; c < chunks_; ++c) done_[c].store(false, std::memory_order_relaxed);
  }

  void check(const char* begin, std::size_t n) const override {
    HAN_ASSERT(begin >= region_ && begin + n <= region_ + bytes_ && n > 0);
    const std::size_t offset = static_cast<std::size_t>(begin - region_);
    for (std::size_t c = offset / chunk_; c <= (offset + n - 1) / chunk_; ++c) check_chunk(c);
  }
  void check_all() const {
    for (std::size_t c = 0; c < chunks_; ++c) check_chunk(c);
  }

 private:
  void check_chunk(std::size_t c) const {
    if (done_[c].load(std::memory_order_acquire)) return;
    const std::size_t from = c * chunk_, to = std::min<std::size_t>(from + chunk_, bytes_);
    if (XXH3_64bits(region_ + from, to - from) != get_le(sums_ + 8 * c, 8)) {
      std::string names;
      for (const Place& p : places_)
        if (p.begin < to && p.end > from) names += (names.empty() ? "" : ", ") + p.name;
      throw err_.corrupted("checksum mismatch in bytes " + std::to_string(region_start_ + from) + " to " +
                           std::to_string(region_start_ + to - 1) + (names.empty() ? "" : ", tensor " + names));
    }
    done_[c].store(true, std::memory_order_release);
  }

  const char* region_;
  std::size_t region_start_;  // the region's offset in the file
  std::size_t bytes_;
  std::uint32_t chunk_;
  const char* sums_;  // in the directory
  std::size_t chunks_;
  std::vector<Place> places_;
  std::unique_ptr<std::atomic<bool>[]> done_;
  ModelErrors err_;
  std::shared_ptr<const MappedFile> file_;  // keeps the region mapped while a view lives
};

// Reads the directory front to back. Nothing in it is trusted until its checksum holds:
// a length that points past the end of the file makes the file "truncated".
class Directory {
 public:
  Directory(const char* data, std::size_t size, const ModelErrors& err) : data_(data), size_(size), err_(err) {}

  std::string header_text;
  struct Entry {
    std::string name;
    std::uint32_t rows, cols;
    std::uint64_t offset;
  };
  std::vector<Entry> entries;
  std::uint32_t chunk = 0;
  const char* sums = nullptr;  // chunk_count little-endian u64 values
  std::size_t chunk_count = 0;
  std::size_t data_start = 0;

  void read() {
    pos_ = kMagicSize + 4;
    const std::uint64_t header_len = le(8);
    header_text.assign(take(header_len), static_cast<std::size_t>(header_len));
    const std::uint32_t count = static_cast<std::uint32_t>(le(4));
    for (std::uint32_t t = 0; t < count; ++t) {
      Entry e;
      const std::uint64_t name_len = le(4);
      e.name.assign(take(name_len), static_cast<std::size_t>(name_len));
      e.rows = static_cast<std::uint32_t>(le(4));
      e.cols = static_cast<std::uint32_t>(le(4));
      e.offset = le(8);
      entries.push_back(std::move(e));
    }
    chunk = static_cast<std::uint32_t>(le(4));
    const std::uint64_t chunks = le(4);
    chunk_count = static_cast<std::size_t>(chunks);
    sums = take(8 * chunks);
    const std::size_t end = pos_;
    if (le(8) != XXH3_64bits(data_, end)) throw err_.corrupted("checksum mismatch");
    data_start = aligned(pos_);
    if (data_start > size_) throw err_.truncated();
    for (std::size_t i = pos_; i < data_start; ++i)
      if (data_[i] != 0) throw err_.corrupted("non-zero padding after its directory");
  }

 private:
  const char* take(std::uint64_t n) {
    if (n > size_ - pos_) throw err_.truncated();
    const char* at = data_ + pos_;
    pos_ += static_cast<std::size_t>(n);
    return at;
  }
  std::uint64_t le(int nbytes) { return get_le(take(static_cast<std::uint64_t>(nbytes)), nbytes); }

  const char* data_;
  std::size_t size_;
  const ModelErrors& err_;
  std::size_t pos_ = 0;
};

// The end of the last tensor's bytes, after checking that every tensor lies in the data
// region, aligned, in order and apart, and that the chunks cover exactly that region.
std::size_t checked_layout(const Directory& d, std::size_t size, const ModelErrors& err) {
  std::size_t end = d.data_start;
  std::set<std::string> names;
  for (const Directory::Entry& e : d.entries) {
    if (!names.insert(e.name).second) throw err.corrupted("duplicate tensor \"" + e.name + "\"");
    std::uint64_t n = 0;
    if (!tensor_bytes(e.rows, e.cols, std::numeric_limits<std::size_t>::max() / 2, &n))
      throw err.corrupted("tensor \"" + e.name + "\" is too large");
    if (n == 0) {
      if (e.offset != 0) throw err.corrupted("empty tensor \"" + e.name + "\" has an offset");
      continue;
    }
    if (e.offset % kAlignment != 0 || e.offset < end) throw err.corrupted("tensor \"" + e.name + "\" is out of place");
    if (e.offset > size || n > size - e.offset) throw err.truncated();  // the directory holds: the data is cut short
    end = static_cast<std::size_t>(e.offset + n);
  }
  if (end < size) throw err.corrupted("unexpected bytes after the last tensor");
  const std::size_t region = end - d.data_start;
  if (d.chunk == 0 || d.chunk_count != (region + d.chunk - 1) / d.chunk)
    throw err.corrupted("its chunk table does not cover its data");
  return end;
}

// A (1, n) tensor holding `bytes` bit for bit (zero bytes after them up to 4n).
Matrix as_elements(const void* bytes, std::size_t n) {
  Matrix m = Matrix::Zero(1, static_cast<Index>((n + 3) / 4));
  if (n > 0) std::memcpy(m.data(), bytes, n);
  return m;
}

// The header's vocabulary as the three arrays (none when it is not a valid vocabulary:
// it then stays in the header, for the loader to refuse).
void store_vocabulary(nlohmann::json& header, std::vector<NamedTensor>& tensors) {
  if (!header.is_object() || !header.contains("vocabulary") || !header["vocabulary"].is_string()) return;
  const std::string& text = header["vocabulary"].get_ref<const std::string&>();
  Vocab vocab;
  try {
    vocab = Vocab::from_words(split_joined(text));
  } catch (const Error&) {
    return;
  }
  const std::vector<std::uint32_t> offsets = vocab.offsets();
  tensors.emplace_back(kVocabularyText, as_elements(text.data(), text.size()));
  tensors.emplace_back(kVocabularyOffsets, as_elements(offsets.data(), 4 * offsets.size()));
  tensors.emplace_back(kVocabularySlots, as_elements(vocab.slots().data(), 4 * vocab.slots().size()));
  header.erase("vocabulary");
}

// Puts a copied stored vocabulary back into the header as one string.
void restore_vocabulary(ModelFileContents& out, const ModelErrors& err) {
  const auto named = [&](const std::string& name) {
    return std::find_if(out.tensors.begin(), out.tensors.end(), [&](const NamedTensor& t) { return t.name == name; });
  };
  const auto text = named(kVocabularyText), offsets = named(kVocabularyOffsets);
  if (text == out.tensors.end() || offsets == out.tensors.end() || !text->stored.empty()) return;
  if (out.header.contains("vocabulary")) throw err.corrupted("two vocabularies");
  std::uint32_t length = 0;
  const Matrix& o = offsets->value;
  if (o.size() < 1 || text->value.rows() != 1) throw err.corrupted("its vocabulary");
  std::memcpy(&length, o.data() + o.size() - 1, sizeof length);
  if (length > 4 * static_cast<std::size_t>(text->value.size())) throw err.corrupted("its vocabulary");
  out.header["vocabulary"] = std::string(reinterpret_cast<const char*>(text->value.data()), length);
  out.tensors.erase(std::remove_if(out.tensors.begin(), out.tensors.end(),
                                   [](const NamedTensor& t) {
                                     return t.name == kVocabularyText || t.name == kVocabularyOffsets ||
                                            t.name == kVocabularySlots;
                                   }),
                    out.tensors.end());
}

}  // namespace

std::string serialize(nlohmann::json header, std::vector<NamedTensor> tensors) {
  store_vocabulary(header, tensors);
  std::string header_text;
  try {
    header_text = header.dump();
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string("cannot serialise the model header: ") + e.what(), 1);
  }
  std::string data;  // the data region, offsets relative to its start (a multiple of 64)
  std::vector<std::size_t> at;
  for (const NamedTensor& t : tensors) {
    HAN_ASSERT(t.stored.empty());
    if (t.value.size() == 0) {
      at.push_back(kNowhere);
      continue;
    }
    data.resize(aligned(data.size()), '\0');
    at.push_back(data.size());
    data.append(reinterpret_cast<const char*>(t.value.data()), tensor_size(t));
  }
  std::string out(kMagic, kMagicSize);
  put_u32(out, kVersion);
  put_u64(out, header_text.size());
  out += header_text;
  put_u32(out, static_cast<std::uint32_t>(tensors.size()));
  std::size_t directory = out.size() + 4 + 4 + 8;
  for (const NamedTensor& t : tensors) directory += 4 + t.name.size() + 4 + 4 + 8;
  const std::size_t chunks = (data.size() + kChunkBytes - 1) / kChunkBytes;
  const std::size_t data_start = aligned(directory + 8 * chunks);
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const NamedTensor& t = tensors[i];
    HAN_ASSERT(t.name.size() <= UINT32_MAX && t.value.rows() <= UINT32_MAX && t.value.cols() <= UINT32_MAX);
    put_u32(out, static_cast<std::uint32_t>(t.name.size()));
    out += t.name;
    put_u32(out, static_cast<std::uint32_t>(t.value.rows()));
    put_u32(out, static_cast<std::uint32_t>(t.value.cols()));
    put_u64(out, at[i] == kNowhere ? 0 : data_start + at[i]);
  }
  put_u32(out, kChunkBytes);
  put_u32(out, static_cast<std::uint32_t>(chunks));
  for (std::size_t c = 0; c < chunks; ++c) {
    const std::size_t from = c * kChunkBytes;
    put_u64(out, XXH3_64bits(data.data() + from, std::min<std::size_t>(kChunkBytes, data.size() - from)));
  }
  put_u64(out, XXH3_64bits(out.data(), out.size()));
  HAN_ASSERT(aligned(out.size()) == data_start);
  out.resize(data_start, '\0');
  out += data;
  return out;
}

ModelFileContents parse(const char* data, std::size_t size, const std::string& who, const KeepInPlace& in_place,
                        std::shared_ptr<const MappedFile> file) {
  const ModelErrors err{who};
  if (size < kMagicSize + 4) throw err.truncated();
  Directory d(data, size, err);
  d.read();
  const std::size_t end = checked_layout(d, size, err);
  std::vector<ChunkCheck::Place> places;
  for (const Directory::Entry& e : d.entries)
    if (e.offset != 0)
      places.push_back({static_cast<std::size_t>(e.offset) - d.data_start,
                        static_cast<std::size_t>(e.offset) - d.data_start + 4 * std::size_t{e.rows} * e.cols, e.name});
  auto check = std::make_shared<ChunkCheck>(data + d.data_start, d.data_start, end - d.data_start, d.chunk, d.sums,
                                            d.chunk_count, std::move(places), err, file);
  ModelFileContents out;
  out.version = kVersion;
  out.header = parse_header(d.header_text, err);
  bool any_in_place = false;
  for (const Directory::Entry& e : d.entries) {
    NamedTensor t;
    t.name = e.name;
    TensorView view(reinterpret_cast<const float*>(data + e.offset), e.rows, e.cols, check);
    if (file && in_place && in_place(e.name) && e.rows > 0 && e.cols > 0) {
      t.stored = std::move(view);
      any_in_place = true;
    } else {
      t.value = view.copy();
    }
    out.tensors.push_back(std::move(t));
  }
  if (!any_in_place) check->check_all();  // the padding between tensors too
  restore_vocabulary(out, err);
  return out;
}

}  // namespace han::model_v3
