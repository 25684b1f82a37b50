#pragma once
// The token cache (data.cache): a corpus's tokenized splits, vocabulary, labels and caps
// in one binary file, so that a later run on the same data with the same tokenizer
// settings maps it (mmap) instead of reading and tokenizing the text again.
// File: the magic "HANTOKC\n", a u32 format version, a u32 0, a u64 header length, the
// JSON header, then each array of every split (Documents' flat arrays) at an 8-byte
// boundary, and last the XXH3-64 of every byte before it.
// The header holds a fingerprint of everything the corpus was made from: the bytes of
// every data file, the tokenizer settings, how answers are read, the words of pretrained
// vectors and of a parent model. A cache whose fingerprint differs is rebuilt, never used.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "han/text/corpus.h"

namespace han {

constexpr std::uint32_t kTokenCacheVersion = 3;  // 2: the header holds min_count; 3: unknown words
// Where the JSON header starts: after the magic (8 bytes), the version, the 0 and the
// header length (a u64 at offset 16).
constexpr std::size_t kTokenCacheHeaderStart = 24;

// The fingerprint of the corpus load_corpus(cfg, vector_words, base) would build. Reads
// every data file through (at disk speed). A stream (stdin, a pipe) cannot be
// fingerprinted: han::Error naming the key.
std::uint64_t corpus_fingerprint(const Config& cfg, const std::vector<std::string>& vector_words,
                                 const CorpusBase* base);

// Writes the corpus (before class weights are applied) atomically; returns the file's
// checksum (Corpus::cache_checksum).
std::uint64_t write_token_cache(const std::string& path, const Corpus& corpus, std::uint64_t fingerprint);

// The corpus of the cache at `path`, its arrays mapped from the file (the pages the checks
// read given back: a process holds the pages it then reads); nothing when there
// is no file there or it is stale (another fingerprint or format version) or damaged,
// which the log says. A file that is not a token cache at all is an error (exit 2): it
// may be the user's and must not be overwritten.
// `unknown_words`: whether the corpus keeps its unknown words (text/reading.h's
// keeps_unknown_words); a cache that does not match is rebuilt.
std::optional<Corpus> read_token_cache(const std::string& path, std::uint64_t fingerprint, bool unknown_words);

}  // namespace han
