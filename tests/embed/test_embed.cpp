// Skip-gram word vectors (src/embed): the negative-sampling step against finite
// differences, the noise distribution, the corpus, determinism with one thread, a
// similarity sanity check, the word2vec text file read back by load_pretrained_vectors, and
// how the skip-gram settings are written into a config.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "han/core/error.h"
#include "han/core/random.h"
#include "han/embed/noise_sampler.h"
#include "han/embed/sgns_update.h"
#include "han/embed/skipgram.h"
#include "han/embed/skipgram_corpus.h"
#include "han/embed/skipgram_text.h"
#include "han/embed/word_vectors.h"
#include "han/text/pretrained_vectors.h"
#include "han/text/vocab.h"
#include "support/gradcheck.h"
#include "support/paths.h"
#include "support/run.h"

using namespace han;
using Catch::Matchers::Contains;
using nlohmann::json;
using han::test::TempDir;

namespace {

double log_sigmoid(double x) { return -std::log1p(std::exp(-x)); }

// log σ(u·v_0) + Σ_{j≥1} log σ(−u·v_j), in double; column 0 of `uv` is u, then v_0, v_1, ...
double sgns_objective(const Matrix& uv) {
  double total = 0;
  for (Index j = 1; j < uv.cols(); ++j) {
    const double dot = uv.col(0).cast<double>().dot(uv.col(j).cast<double>());
    total += log_sigmoid(j == 1 ? dot : -dot);
  }
  return total;
}

// Documents of `length` words drawn from one of two groups of `group_size` words
// ("a0", "a1", ... or "b0", "b1", ...), alternating groups: words co-occur only within their group.
SkipGramCorpus two_group_corpus(int documents, int length, int group_size, std::uint64_t seed) {
  Rng rng(seed);
  SkipGramCorpusBuilder builder;
  for (int d = 0; d < documents; ++d) {
    const std::string group = d % 2 == 0 ? "a" : "b";
    Sentence sentence;
    for (int i = 0; i < length; ++i) sentence.push_back(group + std::to_string(rng.below(group_size)));
    builder.add({sentence});
  }
  return builder.build(1);
}

SkipGramOptions small_options(int threads, std::uint64_t seed) {
  SkipGramOptions o;
  o.dim = 16;
  o.window = 4;
  o.epochs = 3;
  o.sample = 0;  // 20 words of equal frequency: subsampling would drop most of the text
  o.threads = threads;
  o.seed = seed;
  return o;
}

double cosine(const Matrix& m, Index a, Index b) {
  return m.col(a).dot(m.col(b)) / (m.col(a).norm() * m.col(b).norm());
}

}  // namespace

TEST_CASE("one skip-gram step is a gradient step on log σ(u·v) + Σ log σ(−u·n)", "[embed][gradcheck]") {
  const int dim = 7, count = 4;  // the observed word and three noise words
  Rng rng(3);
  Matrix uv(dim, count + 1);
  for (Index i = 0; i < uv.size(); ++i) uv.data()[i] = static_cast<Scalar>(rng.uniform(-0.8, 0.8));
  Matrix updated = uv;
  std::vector<float*> targets;
  for (int j = 1; j <= count; ++j) targets.push_back(updated.col(j).data());
  std::vector<float> scratch(dim);
  const float lr = 0.5f;
  sgns_update(updated.col(0).data(), targets.data(), count, dim, lr, scratch.data());
  // Ascent: new = old + lr * gradient, every gradient at the old values.
  const Matrix analytic = (updated - uv) / lr;
  CHECK(analytic.norm() > 0.1);
  Matrix probe = uv;
  han::test::check_gradient("sgns", probe, analytic, [&] { return sgns_objective(probe); }, 35, 1e-3, 1e-4, 1e-3);
}

TEST_CASE("noise words are drawn with probability proportional to count^0.75", "[embed]") {
  const std::vector<std::int64_t> counts = {1000, 300, 300, 20, 1, 7};
  const NoiseSampler noise(counts);
  double total = 0;
  for (const auto c : counts) total += std::pow(static_cast<double>(c), 0.75);
  std::vector<int> drawn(counts.size());
  Rng rng(5);
  const int draws = 400000;
  for (int i = 0; i < draws; ++i) ++drawn[static_cast<std::size_t>(noise.sample(rng))];
  for (std::size_t i = 0; i < counts.size(); ++i) {
    const double expected = std::pow(static_cast<double>(counts[i]), 0.75) / total;
    INFO("word " << i);
    CHECK(noise.probability(static_cast<std::int32_t>(i)) == Approx(expected).epsilon(1e-6));
    // Within 5 standard deviations of the binomial count.
    CHECK(std::abs(drawn[i] - expected * draws) < 5 * std::sqrt(draws * expected) + 1);
  }
}

TEST_CASE("the skip-gram corpus orders words by count, drops rare words and empty documents", "[embed]") {
  SkipGramCorpusBuilder builder;
  builder.add({{"the", "cat", "sat"}, {"the", "end"}});
  builder.add({});
  builder.add({{"rare"}});
  builder.add({{"the", "cat"}});
  CHECK(builder.documents() == 3);
  const SkipGramCorpus c = builder.build(2);
  CHECK(c.words == std::vector<std::string>{"the", "cat"});
  CHECK(c.counts == std::vector<std::int64_t>{3, 2});
  // "sat", "end" and "rare" are gone; the document holding only "rare" with them.
  CHECK(c.tokens == std::vector<std::int32_t>{0, 1, 0, 0, 1});
  CHECK(c.document_ends == std::vector<std::size_t>{3, 5});
}

TEST_CASE("skip-gram with one thread gives the same vectors for the same seed", "[embed]") {
  const SkipGramCorpus corpus = two_group_corpus(60, 25, 10, 1);
  const WordVectors a = train_skipgram(corpus, small_options(1, 7));
  const WordVectors b = train_skipgram(corpus, small_options(1, 7));
  const WordVectors other_seed = train_skipgram(corpus, small_options(1, 8));
  REQUIRE(a.vectors.rows() == 16);
  REQUIRE(a.vectors.cols() == 20);
  CHECK(a.words == b.words);
  CHECK(a.vectors.cwiseEqual(b.vectors).all());
  CHECK_FALSE(a.vectors.cwiseEqual(other_seed.vectors).all());
}

TEST_CASE("skip-gram puts words that share contexts close together", "[embed]") {
  // 100 words: with only 20, two Hogwild threads collide on nearly every update and the
  // vectors' common direction grew at random (across-group cosine 0.1 to 0.8 from run to run).
  const SkipGramCorpus corpus = two_group_corpus(400, 30, 50, 2);
  for (const int threads : {1, 2}) {
    INFO(threads << " threads");
    SkipGramStats stats;
    const WordVectors v = train_skipgram(corpus, small_options(threads, 1), &stats);
    CHECK(stats.words == 3 * 400 * 30);
    CHECK(stats.pairs > 0);
    double within = 0, across = 0;
    int within_n = 0, across_n = 0;
    for (Index w = 0; w < v.vectors.cols(); ++w) {
      Index nearest = -1;
      for (Index o = 0; o < v.vectors.cols(); ++o) {
        if (o == w) continue;
        const double c = cosine(v.vectors, w, o);
        const bool same = v.words[w][0] == v.words[o][0];
        (same ? within : across) += c;
        ++(same ? within_n : across_n);
        if (nearest < 0 || c > cosine(v.vectors, w, nearest)) nearest = o;
      }
      INFO(v.words[w] << "'s nearest word is " << v.words[nearest]);
      CHECK(v.words[w][0] == v.words[nearest][0]);
    }
    CHECK(within / within_n > across / across_n + 0.5);
  }
}

TEST_CASE("word2vec text: a header, one line per word, read back exactly by load_pretrained_vectors", "[embed]") {
  TempDir tmp;
  WordVectors v;
  v.words = {"good", "don't", "é", ","};
  v.vectors = Matrix(3, 4);
  v.vectors << 0.1f, -1e-30f, 3.4e38f, 1.0f / 3, 0, -0.0f, 123456.789f, 2.5e-7f, -7, 1, 1e-45f, 0.3f;
  const std::string path = tmp.file("v.txt");
  save_word_vectors(path, v);
  const std::string text = test::slurp(path);
  CHECK(text.rfind("4 3\ngood ", 0) == 0);
  CHECK(std::count(text.begin(), text.end(), '\n') == 5);
  CHECK(read_vector_words(path) == v.words);
  const Vocab vocab = Vocab::from_words({"<pad>", "<unk>", "good", "don't", "é", ",", "absent"});
  Matrix table = Matrix::Constant(3, 7, 9);
  CHECK(load_pretrained_vectors(table, vocab, path) == 4);
  CHECK(table.middleCols(2, 4).cwiseEqual(v.vectors).all());
  CHECK(table.col(6).cwiseEqual(9).all());
}

TEST_CASE("skip-gram text: data.train without labels, data.unlabeled and plain files, one document per line", "[embed]") {
  TempDir tmp;
  Config cfg;
  cfg.embed.min_count = 1;
  cfg.data.train = tmp.write("train.jsonl", "{\"label\": \"x\", \"text\": \"Alpha beta.\"}\n{\"text\": \"gamma\"}\n");
  cfg.data.unlabeled = tmp.write("unlabeled.txt", "alpha ALPHA\n\n   \ndelta\r\nbeta");
  const std::string extra = tmp.write("extra.txt", "epsilon alpha\n");
  const SkipGramCorpus c = read_skipgram_text(cfg, {extra});
  CHECK(c.documents() == 6);
  CHECK(c.words.front() == "alpha");
  CHECK(c.counts.front() == 4);
  CHECK(c.tokens.size() == 10);  // "." is a word too

  SECTION("errors name the key or the files") {
    cfg.embed.min_count = 50;
    REQUIRE_THROWS_WITH(read_skipgram_text(cfg), Contains("embed.min_count") && Contains("unlabeled.txt"));
    cfg.data.unlabeled = tmp.file("missing.txt");
    REQUIRE_THROWS_WITH(read_skipgram_text(cfg), Contains("missing.txt"));
    cfg.data.unlabeled = tmp.write("blank.txt", "\n \n");
    cfg.data.train.clear();
    REQUIRE_THROWS_WITH(read_skipgram_text(cfg), Contains("blank.txt") && Contains("no words"));
    cfg.data.unlabeled.clear();
    REQUIRE_THROWS_WITH(read_skipgram_text(cfg), Contains("data.unlabeled"));
  }
}

TEST_CASE("config: the skip-gram settings are written only when set or used, as before they existed", "[embed][config]") {
  Config c;
  json j = config_to_json(c);
  CHECK_FALSE(j.contains("embed"));
  CHECK_FALSE(j["data"].contains("unlabeled"));
  c.data.unlabeled = "u.txt";
  CHECK(config_to_json(c)["data"]["unlabeled"] == "u.txt");
  c.embed.negative = 7;
  j = config_to_json(c);
  CHECK(j["embed"]["negative"] == 7);
  CHECK(j["embed"]["window"] == 5);
  CHECK(config_from_json(j, "").embed.negative == 7);
  c.embed = EmbedConfig{};
  c.model.embeddings = kPretrainEmbeddings;  // a run that pretrains records the settings it used
  CHECK(config_to_json(c)["embed"]["epochs"] == 5);
}
