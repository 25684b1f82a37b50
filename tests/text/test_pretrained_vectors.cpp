// Pretrained word vectors: the text reader (header line, unknown words, errors naming
// file:line) and what model.embeddings / model.freeze_embeddings do in training.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>

#include "han/core/error.h"
#include "han/text/corpus.h"
#include "han/text/pretrained_vectors.h"
#include "han/text/vocab.h"
#include "han/train/trainer.h"
#include "support/bundled.h"
#include "support/paths.h"
#include "support/run.h"

using namespace han;
using han::test::TempDir;

namespace {

constexpr Scalar kUntouched = 7;

Vocab small_vocab() { return Vocab::from_words({"<pad>", "<unk>", "good", "bad", "film"}); }

// A (3, 5) table filled with kUntouched, so every column a load writes shows.
Matrix untouched_table() { return Matrix::Constant(3, 5, kUntouched); }

Matrix column(float a, float b, float c) { return (Matrix(3, 1) << a, b, c).finished(); }

bool equal(const Matrix& a, const Matrix& b) {
  return a.rows() == b.rows() && a.cols() == b.cols() && a.cwiseEqual(b).all();
}

std::string error_of(Matrix& table, const std::string& path) {
  try {
    load_pretrained_vectors(table, small_vocab(), path);
  } catch (const Error& e) {
    CHECK(e.exit_code() == 2);
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("pretrained vectors: vocabulary words are loaded, unknown words skipped and not counted",
          "[pretrained]") {
  TempDir tmp;
  const Vocab vocab = small_vocab();
  const std::string body = "good 0.5 -1 2\nzebra 1 1 1\n\nfilm 0.25 0.5 0.75\r\nquokka 2 2 2\n";
  SECTION("with word2vec's \"count dim\" header line") {
    Matrix table = untouched_table();
    CHECK(load_pretrained_vectors(table, vocab, tmp.write("v.txt", "4 3\n" + body)) == 2);
    CHECK(equal(table.col(vocab.id("good")), column(0.5f, -1, 2)));
    CHECK(equal(table.col(vocab.id("film")), column(0.25f, 0.5f, 0.75f)));
    CHECK((table.col(vocab.id("bad")).array() == kUntouched).all());
    CHECK((table.col(Vocab::kPad).array() == kUntouched).all());
    CHECK((table.col(Vocab::kUnk).array() == kUntouched).all());  // unknown words never land on UNK
  }
  SECTION("without a header (GloVe)") {
    Matrix table = untouched_table();
    CHECK(load_pretrained_vectors(table, vocab, tmp.write("v.txt", body)) == 2);
    CHECK(equal(table.col(vocab.id("good")), column(0.5f, -1, 2)));
    CHECK((table.col(Vocab::kUnk).array() == kUntouched).all());
  }
  SECTION("the vocabulary's own <unk> entry is a word like any other") {
    Matrix table = untouched_table();
    CHECK(load_pretrained_vectors(table, vocab, tmp.write("v.txt", "<unk> 1 2 3\n")) == 1);
    CHECK(equal(table.col(Vocab::kUnk), column(1, 2, 3)));
  }
  SECTION("a file with no vocabulary word changes nothing") {
    Matrix table = untouched_table();
    CHECK(load_pretrained_vectors(table, vocab, tmp.write("v.txt", "zebra 1 1 1\n")) == 0);
    CHECK((table.array() == kUntouched).all());
  }
}

TEST_CASE("pretrained vectors: a wrong size or a non-number is an error naming file:line", "[pretrained]") {
  TempDir tmp;
  Matrix table = untouched_table();
  const std::string short_vector = tmp.write("short.txt", "good 1 2 3\n\nbad 1 2\n");
  CHECK(error_of(table, short_vector) ==
        short_vector + ":3: vector has 2 values, model.embedding_dim is 3");
  const std::string long_vector = tmp.write("long.txt", "good 1 2 3 4\n");
  CHECK(error_of(table, long_vector) == long_vector + ":1: vector has 4 values, model.embedding_dim is 3");
  // A "count dim" line is a header on line 1 only.
  const std::string late_header = tmp.write("late.txt", "good 1 2 3\n4 3\n");
  CHECK(error_of(table, late_header) == late_header + ":2: vector has 1 values, model.embedding_dim is 3");
  const std::string word = tmp.write("word.txt", "good 1 2 3\nbad 1 two 3\n");
  CHECK(error_of(table, word) == word + ":2: expected numbers after the word");
  const std::string glued = tmp.write("glued.txt", "good 1 2 3x\n");
  CHECK(error_of(table, glued) == glued + ":1: expected numbers after the word");
  CHECK_THAT(error_of(table, tmp.file("missing.txt")), Catch::Contains(tmp.file("missing.txt")));
  CHECK_THAT(error_of(table, tmp.path.string()), Catch::Contains(tmp.path.string()));
}

TEST_CASE("pretrained vectors in training: a frozen table never moves, an unfrozen one learns, a scaled one less",
          "[pretrained][trainer]") {
  TempDir tmp;
  Config cfg = han::test::bundled_config(8, 1);
  Corpus corpus = load_corpus(cfg);
  corpus.train.truncate(300);
  corpus.dev.truncate(50);
  // Vectors for the 20 most frequent words, in eighths (exact in text and in float).
  const Index dim = cfg.model.embedding_dim, first = 2, count = 20;
  Matrix vectors(dim, count);
  std::string text = "unseenword";
  for (Index i = 0; i < dim; ++i) text += " 0.5";
  text += "\n";
  for (Index w = 0; w < count; ++w) {
    text += corpus.vocab.word(static_cast<std::int32_t>(first + w));
    for (Index i = 0; i < dim; ++i) {
      vectors(i, w) = static_cast<Scalar>((w * 7 + i * 3) % 17 - 8) / 8;
      text += " " + std::to_string(vectors(i, w));
    }
    text += "\n";
  }
  cfg.model.embeddings = tmp.write("vectors.txt", text);

  cfg.model.freeze_embeddings = Switch::on;
  const TrainResult frozen = train_model(cfg, corpus);
  cfg.optimizer.lr *= 4;
  const TrainResult frozen_faster = train_model(cfg, corpus);
  cfg.optimizer.lr /= 4;
  cfg.model.freeze_embeddings = Switch::off;
  const TrainResult learned = train_model(cfg, corpus);

  const Matrix& table = frozen.last_params.embedding.table;
  CHECK(equal(table.middleCols(first, count), vectors));
  // Same seed, other learning rate: everything trained differs, the frozen table does not.
  CHECK(equal(table, frozen_faster.last_params.embedding.table));
  CHECK_FALSE(equal(frozen.last_params.word_gru.fwd.W, frozen_faster.last_params.word_gru.fwd.W));
  CHECK_FALSE(equal(frozen.last_params.output.W, frozen_faster.last_params.output.W));
  // Unfrozen, the same start moves.
  CHECK_FALSE(equal(learned.last_params.embedding.table.middleCols(first, count), vectors));
  CHECK_FALSE(equal(learned.last_params.embedding.table, table));

  // optimizer.embedding_lr_scale: 0 keeps the table as frozen does; 0.1 moves it, less far.
  cfg.optimizer.embedding_lr_scale = 0;
  CHECK(equal(train_model(cfg, corpus).last_params.embedding.table, table));
  cfg.optimizer.embedding_lr_scale = 0.1;
  const TrainResult slow = train_model(cfg, corpus);
  const double moved_slow = (slow.last_params.embedding.table - table).cwiseAbs().sum();
  const double moved_full = (learned.last_params.embedding.table - table).cwiseAbs().sum();
  CHECK(moved_slow > 0);
  CHECK(moved_slow < 0.5 * moved_full);
}

namespace {

// word2vec's binary format: "count dim\n", then per word "word " + dim float32s + "\n".
std::string binary_vectors(const std::vector<std::pair<std::string, std::vector<float>>>& entries, std::size_t dim) {
  std::string out = std::to_string(entries.size()) + " " + std::to_string(dim) + "\n";
  for (const auto& [word, values] : entries) {
    out += word + " ";
    out.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float));
    out += "\n";
  }
  return out;
}

}  // namespace

TEST_CASE("pretrained vectors: word2vec binary, gzip'd text, and a cut-short binary file", "[pretrained]") {
  TempDir tmp;
  const Vocab vocab = small_vocab();
  // 10.0f is 0x41200000: a raw float holds bytes no text number has.
  const std::string bin = binary_vectors({{"zebra", {1, 2, 3}}, {"good", {10, 0.5f, -1}}, {"film", {0.25f, 1e-3f, 7}}}, 3);
  Matrix table = untouched_table();
  CHECK(load_pretrained_vectors(table, vocab, tmp.write("v.bin", bin)) == 2);
  CHECK(equal(table.col(vocab.id("good")), column(10, 0.5f, -1)));
  CHECK(equal(table.col(vocab.id("film")), column(0.25f, 1e-3f, 7)));
  CHECK((table.col(vocab.id("bad")).array() == kUntouched).all());

  const std::string cut = tmp.write("cut.bin", bin.substr(0, bin.size() - 6));
  Matrix other = untouched_table();
  CHECK(error_of(other, cut) == cut + ": entry 3 of 3: the file ends early (is it cut short?)");

  const std::string text = tmp.write("v.txt", "2 3\ngood 0.5 -1 2\nfilm 0.25 0.5 0.75\n");
  REQUIRE(han::test::run("gzip -k " + text).exit_code == 0);
  Matrix from_gz = untouched_table();
  CHECK(load_pretrained_vectors(from_gz, vocab, text + ".gz") == 2);
  CHECK(equal(from_gz.col(vocab.id("film")), column(0.25f, 0.5f, 0.75f)));

  const std::string wrong_dim = tmp.write("dim.txt", "2 4\ngood 1 2 3 4\n");
  CHECK(error_of(other, wrong_dim) == wrong_dim + ":1: the vectors have 4 values, model.embedding_dim is 3");
}

TEST_CASE("pretrained vectors: '+' signs and underflow read as the tools write them, nan and inf are refused",
          "[pretrained]") {
  TempDir tmp;
  const Vocab vocab = small_vocab();
  Matrix table = untouched_table();
  CHECK(load_pretrained_vectors(table, vocab, tmp.write("v.txt", "good +0.5 1e-50 -2\n")) == 1);
  CHECK(equal(table.col(vocab.id("good")), column(0.5f, 0, -2)));
  for (const char* bad : {"good nan 1 2\n", "good 1 inf 2\n", "good 1 2 1e99\n"}) {
    INFO(bad);
    const std::string path = tmp.write("bad.txt", bad);
    CHECK(error_of(table, path) == path + ":1: expected numbers after the word");
  }
  // A binary file whose first float begins with the byte of a line break is still binary.
  float first = 0;
  const unsigned char bytes[4] = {0x0A, 0x00, 0x80, 0x3F};  // about 1.0000012
  std::memcpy(&first, bytes, 4);
  const std::string bin = binary_vectors({{"good", {first, 2, 3}}}, 3);
  Matrix from_bin = untouched_table();
  CHECK(load_pretrained_vectors(from_bin, vocab, tmp.write("nl.bin", bin)) == 1);
  CHECK(equal(from_bin.col(vocab.id("good")), column(first, 2, 3)));
}
