#include "han/text/token_cache.h"

#include <spdlog/spdlog.h>
#include <xxhash.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>

#include "han/core/error.h"
#include "han/text/vocab.h"
#include "han/core/input_stream.h"
#include "han/core/io.h"
#include "han/core/json_text.h"
#include "han/core/mapped_file.h"
#include "han/text/reading.h"

namespace han {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

constexpr char kMagic[8] = {'H', 'A', 'N', 'T', 'O', 'K', 'C', '\n'};
constexpr std::size_t kPreamble = kTokenCacheHeaderStart;
static_assert(kPreamble == sizeof kMagic + 4 + 4 + 8, "magic, version, 0, header length");
constexpr std::size_t kAlign = 8;

using Xxh3State = std::unique_ptr<XXH3_state_t, decltype(&XXH3_freeState)>;

Xxh3State new_hash() {
  Xxh3State state(XXH3_createState(), &XXH3_freeState);
  if (!state) throw Error("out of memory");
  XXH3_64bits_reset(state.get());
  return state;
}

void hash_file_bytes(XXH3_state_t* state, const std::string& path) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(open_for_reading(path), &std::fclose);
  std::vector<char> buffer(std::size_t{1} << 20);
  while (const std::size_t n = std::fread(buffer.data(), 1, buffer.size(), f.get())) XXH3_64bits_update(state, buffer.data(), n);
  if (std::ferror(f.get())) throw Error(path + ": cannot read");
}

// A data file's bytes, or a folder's files (their paths below it and bytes, in order).
std::uint64_t data_hash(const std::string& path) {
  Xxh3State state = new_hash();
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    std::vector<fs::path> files;
    for (const auto& entry : fs::recursive_directory_iterator(path, ec))
      if (entry.is_regular_file()) files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    for (const fs::path& file : files) {
      const std::string name = fs::relative(file, path).string();
      XXH3_64bits_update(state.get(), name.c_str(), name.size() + 1);
      hash_file_bytes(state.get(), file.string());
    }
  } else {
    hash_file_bytes(state.get(), path);
  }
  return XXH3_64bits_digest(state.get());
}

std::uint64_t words_hash(const std::vector<std::string>& words) {
  Xxh3State state = new_hash();
  for (const std::string& w : words) XXH3_64bits_update(state.get(), w.c_str(), w.size() + 1);
  return XXH3_64bits_digest(state.get());
}

// One array of a split: where it lies in the file.
struct Placed {
  std::string_view bytes;
  std::size_t offset = 0;
};

template <class T>
std::string_view bytes_of(const T* data, std::uint64_t count) {
  return {reinterpret_cast<const char*>(data), static_cast<std::size_t>(count * sizeof(T))};
}

// The arrays of a split, in file order, by name.
std::vector<std::pair<const char*, std::string_view>> split_arrays(const Documents& docs) {
  const WordArrays& w = docs.word_arrays();
  const Answers& a = docs.answers();
  std::vector<std::pair<const char*, std::string_view>> arrays{
          {"words", {static_cast<const char*>(w.words), static_cast<std::size_t>(w.word_count * (w.narrow ? 2 : 4))}},
          {"sentence_starts", bytes_of(w.sentence_starts, w.sentence_count + 1)},
          {"document_starts", bytes_of(w.document_starts, docs.size() + 1)},
          {"labels", bytes_of(a.labels.data(), a.labels.size())},
          {"targets", bytes_of(a.targets.data(), a.targets.size())},
          {"weights", bytes_of(a.weights.data(), a.weights.size())},
          {"label_set_starts", bytes_of(a.label_set_starts.data(), a.label_set_starts.size())},
          {"label_set_ids", bytes_of(a.label_set_ids.data(), a.label_set_ids.size())}};
  if (const UnknownWords* u = docs.unknown_words()) {
    arrays.emplace_back("unknown_starts", bytes_of(u->starts().data(), u->starts().size()));
    arrays.emplace_back("unknown_ids", bytes_of(u->ids().data(), u->ids().size()));
  }
  return arrays;
}

}  // namespace

std::uint64_t corpus_fingerprint(const Config& cfg, const std::vector<std::string>& vector_words,
                                 const CorpusBase* base) {
  json what = {{"cache_version", kTokenCacheVersion},
               {"tokenizer", config_to_json(cfg)["tokenizer"]},
               {"format", to_string(cfg.data.format)},
               {"encoding", to_string(cfg.data.encoding)},
               {"task", to_string(cfg.model.task)},
               {"label_separator", cfg.data.label_separator},
               {"target_key", cfg.data.target_key},
               {"vector_words", words_hash(vector_words)},
               {"whole_text", reads_whole_text(cfg.model)},
               {"unknown_words", keeps_unknown_words(cfg.model)}};
  if (base) what["base"] = {words_hash(base->words), words_hash(base->labels), base->extend_vocab};
  for (const auto& [key, path] : {std::pair{"data.train", &cfg.data.train}, {"data.dev", &cfg.data.dev}, {"data.test", &cfg.data.test}}) {
    if (path->empty()) continue;
    if (is_stream_path(*path))
      throw Error(std::string(key) + ": " + quote_excerpt(*path) +
                  " is a stream, and data.cache needs files it can fingerprint (or set data.cache to \"\")");
    what["files"][key] = data_hash(*path);
  }
  const std::string text = what.dump();
  return XXH3_64bits(text.data(), text.size());
}

namespace {

std::size_t aligned(std::size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

// The header's record of one split, and its arrays placed from `offset` (relative to the
// first array) on, appended to `parts` with the padding between them.
json place_split(const Documents& docs, std::size_t& offset, std::vector<std::string_view>& parts) {
  static const char kZeros[kAlign] = {};
  const WordArrays& w = docs.word_arrays();
  json split = {{"documents", docs.size()}, {"narrow", w.narrow}, {"word_count", w.word_count},
                {"sentence_count", w.sentence_count}, {"label_set_ids", docs.answers().label_set_ids.size()}};
  if (const UnknownWords* u = docs.unknown_words()) {
    split["unknown_words"] = u->distinct();
    split["unknown_count"] = u->ids().size();
  }
  for (const auto& [name, bytes] : split_arrays(docs)) {
    split["arrays"][name] = {offset, bytes.size()};
    parts.push_back(bytes);
    parts.emplace_back(kZeros, aligned(bytes.size()) - bytes.size());
    offset += aligned(bytes.size());
  }
  return split;
}

template <class T>
void append_binary(std::string& out, T value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

}  // namespace

std::uint64_t write_token_cache(const std::string& path, const Corpus& corpus, std::uint64_t fingerprint) {
  std::vector<std::string_view> arrays;
  std::size_t offset = 0;
  json header = {{"fingerprint", fingerprint},
                 {"vocab", corpus.vocab.words()},
                 {"labels", corpus.labels},
                 {"max_sentences", corpus.max_sentences},
                 {"max_words", corpus.max_words},
                 {"min_count", corpus.min_count},
                 {"train_distinct_words", corpus.train_distinct_words}};
  for (const auto& [name, docs] : {std::pair{"train", &corpus.train}, {"dev", &corpus.dev}, {"test", &corpus.test}})
    header["splits"][name] = place_split(*docs, offset, arrays);
  std::string text = header.dump();
  text.append(aligned(kPreamble + text.size()) - kPreamble - text.size(), ' ');  // JSON allows trailing spaces
  std::string preamble(kMagic, sizeof kMagic);
  append_binary(preamble, kTokenCacheVersion);
  append_binary(preamble, std::uint32_t{0});
  append_binary(preamble, static_cast<std::uint64_t>(text.size()));
  std::vector<std::string_view> parts = {preamble, text};
  parts.insert(parts.end(), arrays.begin(), arrays.end());
  Xxh3State state = new_hash();
  for (std::string_view p : parts) XXH3_64bits_update(state.get(), p.data(), p.size());
  const std::uint64_t checksum = XXH3_64bits_digest(state.get());
  parts.emplace_back(reinterpret_cast<const char*>(&checksum), sizeof checksum);
  write_file_atomically(path, parts);
  return checksum;
}

namespace {

// A cache that cannot be used: the reason, for the log line.
struct Unusable {
  std::string why;
};

// A whole number of the header. Anything else (a negative or fractional number, or one
// past 2^64 that JSON reads as a float) is refused: casting it would be undefined.
std::uint64_t whole(const json& j) {
  if (!j.is_number_unsigned()) throw Unusable{"a count or offset in its header is not a whole number"};
  return j.get<std::uint64_t>();
}

template <class T>
T read_binary(const char* at) {
  T value;
  std::memcpy(&value, at, sizeof value);
  return value;
}

// Typed views of a split's arrays inside the mapped data section, checked against the
// file's size and each other, so a damaged cache can never index out of bounds.
class SplitReader {
 public:
  SplitReader(const json& split, std::string_view data) : split_(split), data_(data) {}

  template <class T>
  const T* array(const char* name, std::uint64_t count) const {
    const json& placed = split_.at("arrays").at(name);
    const std::uint64_t offset = whole(placed.at(0)), bytes = whole(placed.at(1));
    // count is checked first: a crafted count times sizeof(T) could wrap around to `bytes`.
    if (count > data_.size() / sizeof(T) || bytes != count * sizeof(T) || offset % kAlign != 0 ||
        offset > data_.size() || bytes > data_.size() - offset)
      throw Unusable{std::string("the ") + name + " array is out of place"};
    return reinterpret_cast<const T*>(data_.data() + offset);
  }

 private:
  const json& split_;
  std::string_view data_;
};

// allow_empty: whether two starts may be equal (documents without sentences may exist;
// sentences without words never do: Documents::add_sentence skips them).
template <class T>
void check_starts(const T* starts, std::uint64_t count, std::uint64_t last, const char* what, bool allow_empty = true) {
  if (starts[0] != 0 || starts[count] != last) throw Unusable{std::string(what) + " do not add up"};
  for (std::uint64_t i = 0; i < count; ++i)
    if (starts[i] > starts[i + 1] || (!allow_empty && starts[i] == starts[i + 1]))
      throw Unusable{std::string(what) + (starts[i] > starts[i + 1] ? " go backwards" : " leave an empty one")};
}

template <class T>
std::vector<T> copied(const T* first, std::uint64_t count) {
  return std::vector<T>(first, first + count);
}

void check_ids(const WordArrays& w, std::size_t vocab_size) {
  std::int64_t largest = -1, smallest = 0;
  for (std::uint64_t i = 0; i < w.word_count; ++i) {
    const std::int64_t id = w.narrow ? static_cast<const std::uint16_t*>(w.words)[i] : static_cast<const std::int32_t*>(w.words)[i];
    largest = std::max(largest, id);
    smallest = std::min(smallest, id);
  }
  if (smallest < 0 || largest >= static_cast<std::int64_t>(vocab_size)) throw Unusable{"a word id is outside the vocabulary"};
}

Answers read_answers(const SplitReader& r, std::uint64_t n, std::uint64_t set_ids, std::size_t labels) {
  Answers a;
  a.labels = copied(r.array<std::int32_t>("labels", n), n);
  a.targets = copied(r.array<float>("targets", n), n);
  a.weights = copied(r.array<float>("weights", n), n);
  a.label_set_starts = copied(r.array<std::uint64_t>("label_set_starts", n + 1), n + 1);
  a.label_set_ids = copied(r.array<std::int32_t>("label_set_ids", set_ids), set_ids);
  check_starts(a.label_set_starts.data(), n, set_ids, "label set starts");
  const auto bad = [&](std::int32_t l) { return l < -1 || l >= static_cast<std::int64_t>(labels); };
  if (std::any_of(a.labels.begin(), a.labels.end(), bad) || std::any_of(a.label_set_ids.begin(), a.label_set_ids.end(), bad))
    throw Unusable{"a label is outside the label list"};
  return a;
}

// A split's element count: an array of that many elements (or one more) must fit in the
// data section, so count + 1 cannot wrap around.
std::uint64_t count(const json& split, const char* key, std::string_view data) {
  const std::uint64_t n = whole(split.at(key));
  if (n >= data.size()) throw Unusable{std::string("its ") + key + " is out of range"};
  return n;
}

// The split's kept unknown words (text/unknown_words.h), copied.
// Each document must hold one entry per <unk> of its words (checked arrays `w`).
UnknownWords read_unknown_words(const json& split, const SplitReader& r, std::uint64_t n, std::string_view data,
                                const WordArrays& w) {
  const std::uint64_t entries = count(split, "unknown_count", data);
  std::vector<std::uint64_t> starts = copied(r.array<std::uint64_t>("unknown_starts", n + 1), n + 1);
  check_starts(starts.data(), n, entries, "unknown word starts");
  for (std::uint64_t d = 0; d < n; ++d) {
    std::uint64_t unknown = 0;
    for (std::uint64_t i = w.sentence_starts[w.document_starts[d]]; i < w.sentence_starts[w.document_starts[d + 1]]; ++i)
      unknown += (w.narrow ? static_cast<const std::uint16_t*>(w.words)[i] : static_cast<const std::int32_t*>(w.words)[i]) ==
                 Vocab::kUnk;
    if (unknown != starts[d + 1] - starts[d]) throw Unusable{"its unknown words do not match its <unk> words"};
  }
  const json& distinct = split.at("unknown_words");
  if (!distinct.is_array() || !std::all_of(distinct.begin(), distinct.end(), [](const json& w) { return w.is_string(); }))
    throw Unusable{"its unknown words are not a list of words"};
  try {
    return UnknownWords::from_arrays(std::move(starts), copied(r.array<std::uint32_t>("unknown_ids", entries), entries),
                                     distinct.get<std::vector<std::string>>(), "token cache");
  } catch (const Error& e) {
    throw Unusable{e.what()};
  }
}

// `unknown_words`: whether the documents must keep their unknown words (the settings that
// made the fingerprint keep them).
Documents read_split(const json& split, std::string_view data, const Corpus& corpus,
                     const std::shared_ptr<const MappedFile>& file, bool unknown_words) {
  const SplitReader r(split, data);
  const std::uint64_t n = count(split, "documents", data), words = count(split, "word_count", data),
                      sentences = count(split, "sentence_count", data);
  WordArrays w;
  w.narrow = split.at("narrow");
  w.word_count = words;
  w.sentence_count = sentences;
  w.words = w.narrow ? static_cast<const void*>(r.array<std::uint16_t>("words", words)) : r.array<std::int32_t>("words", words);
  w.sentence_starts = r.array<std::uint64_t>("sentence_starts", sentences + 1);
  w.document_starts = r.array<std::uint64_t>("document_starts", n + 1);
  check_starts(w.sentence_starts, sentences, words, "sentence starts", /*allow_empty=*/false);
  check_starts(w.document_starts, n, sentences, "document starts");
  check_ids(w, corpus.vocab.size());
  Documents docs(w, read_answers(r, n, count(split, "label_set_ids", data), corpus.labels.size()), file,
                 Caps{corpus.max_sentences, corpus.max_words});
  const bool held = split.contains("unknown_words");
  if (n > 0 && held != unknown_words)  // (an empty split, one not given, has none either way)
    throw Unusable{unknown_words ? "it lacks the words the vocabulary does not hold" : "it holds unknown words it should not"};
  if (held) docs.set_unknown_words(read_unknown_words(split, r, n, data, w));
  return docs;
}

// The header of a mapped cache after its preamble and checksum are checked.
json checked_header(std::string_view bytes) {
  if (bytes.size() < kPreamble + 8) throw Unusable{"it is cut short"};
  const auto version = read_binary<std::uint32_t>(bytes.data() + sizeof kMagic);
  if (version != kTokenCacheVersion) throw Unusable{"it has format " + std::to_string(version) + ", this han writes " + std::to_string(kTokenCacheVersion)};
  const auto stored = read_binary<std::uint64_t>(bytes.data() + bytes.size() - 8);
  if (XXH3_64bits(bytes.data(), bytes.size() - 8) != stored) throw Unusable{"its checksum does not match (damaged)"};
  const auto header_bytes = read_binary<std::uint64_t>(bytes.data() + kPreamble - 8);
  // The arrays' 8-byte alignment is relative to the data section, which must start aligned too.
  if (header_bytes > bytes.size() - kPreamble - 8 || header_bytes % kAlign != 0)
    throw Unusable{"its header is out of place"};
  return json::parse(bytes.substr(kPreamble, header_bytes));
}

Corpus corpus_from(const json& header, std::string_view data, const std::shared_ptr<const MappedFile>& file,
                   bool unknown_words) {
  Corpus corpus;
  corpus.vocab = Vocab::from_words(header.at("vocab").get<std::vector<std::string>>());
  corpus.labels = header.at("labels").get<std::vector<std::string>>();
  const auto cap = [&](const char* key) {
    const std::uint64_t n = whole(header.at(key));
    if (n == 0 || n > 100000) throw Unusable{std::string("its ") + key + " is out of range"};  // config's range
    return static_cast<int>(n);
  };
  corpus.max_sentences = cap("max_sentences");
  corpus.max_words = cap("max_words");
  const std::uint64_t min_count = whole(header.at("min_count"));
  if (min_count == 0 || min_count > 1000000000) throw Unusable{"its min_count is out of range"};  // config's range
  corpus.min_count = static_cast<int>(min_count);
  corpus.train_distinct_words = whole(header.at("train_distinct_words"));
  const json& splits = header.at("splits");
  corpus.train = read_split(splits.at("train"), data, corpus, file, unknown_words);
  corpus.dev = read_split(splits.at("dev"), data, corpus, file, unknown_words);
  corpus.test = read_split(splits.at("test"), data, corpus, file, unknown_words);
  corpus.cache_file = file;
  // The checks read every page; a rank of a distributed run then touches only its share.
  file->release_pages();
  return corpus;
}

}  // namespace

std::optional<Corpus> read_token_cache(const std::string& path, std::uint64_t fingerprint, bool unknown_words) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return std::nullopt;
  const std::shared_ptr<const MappedFile> file = MappedFile::open(path);
  const std::string_view bytes = file->bytes();
  // Someone else's file at that path (a data file named by mistake) must never be replaced.
  if (bytes.size() < sizeof kMagic || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
    throw Error("data.cache: " + path + " exists and is not a han token cache; refusing to overwrite it (give another path)");
  try {
    const json header = checked_header(bytes);
    if (whole(header.at("fingerprint")) != fingerprint) {
      spdlog::info("token cache {}: made from other data or settings; rebuilding it", path);
      return std::nullopt;
    }
    const std::size_t data_start = kPreamble + static_cast<std::size_t>(read_binary<std::uint64_t>(bytes.data() + kPreamble - 8));
    Corpus corpus = corpus_from(header, bytes.substr(data_start, bytes.size() - 8 - data_start), file, unknown_words);
    corpus.cache_checksum = read_binary<std::uint64_t>(bytes.data() + bytes.size() - 8);
    return corpus;
  } catch (const Unusable& u) {
    spdlog::warn("token cache {}: {}; rebuilding it", path, u.why);
  } catch (const json::exception& e) {
    spdlog::warn("token cache {}: unreadable header ({}); rebuilding it", path, json_error_reason(e));
  } catch (const Error& e) {
    spdlog::warn("token cache {}: {}; rebuilding it", path, e.what());
  }
  return std::nullopt;
}

}  // namespace han
