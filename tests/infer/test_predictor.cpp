// The predictor (which uses the word input table whenever 6Hw <= 2E) against the model's
// plain forward pass, one document at a time, on every path: one thread or several,
// whole batches per thread or one batch split into shards, with explanations.
#include <catch2/catch.hpp>

#include "han/text/batch.h"
#include "han/nn/loss.h"
#include "han/nn/model.h"
#include "han/infer/predictor.h"
#include "han/nn/word_input_table.h"
#include "support/documents.h"

using namespace han;

namespace {

std::vector<Document> documents(int n) { return test::random_documents(n, 4); }

}  // namespace

TEST_CASE("predictions with the word input table equal the plain forward pass", "[predictor]") {
  ModelConfig cfg;
  cfg.embedding_dim = 12;
  cfg.word_hidden = 4;  // 6Hw = 24 <= 2E: the table is used
  cfg.sentence_hidden = 3;
  cfg.attention_dim = 5;
  cfg.mask = MaskMode::renorm;
  Rng rng(8);
  const HanParams p = han_init(cfg, 30, 3, rng);
  REQUIRE(WordInputTable(p).table() != nullptr);
  const std::vector<Document> docs = documents(23);
  Matrix expected(3, 23);
  for (Index i = 0; i < 23; ++i) {
    HanCache c;
    expected.col(i) = softmax_columns(han_forward(p, cfg, make_batch(Documents(docs), {i}), nullptr, c, false));
  }
  for (int threads : {1, 3}) {
    for (Index batch_size : {4, 64}) {  // many batches (whole batches per thread) or one (shards)
      const Predictor predictor(p, cfg, threads);
      std::vector<Explanation> explanations;
      const Matrix got = predictor.predict(Documents(docs), batch_size, &explanations);
      INFO("threads " << threads << ", batch size " << batch_size);
      CHECK((got - expected).cwiseAbs().maxCoeff() <= 1e-5f);
      REQUIRE(explanations.size() == docs.size());
      CHECK(explanations[5].sentence_weights.size() == docs[5].sentences.size());
    }
    // A stream: batch after batch on one predictor, each filling only its own words.
    const Predictor stream(p, cfg, threads);
    for (Index i = 0; i < 23; i += 5) {
      std::vector<Index> indices;
      for (Index j = i; j < std::min<Index>(23, i + 5); ++j) indices.push_back(j);
      const Matrix got = stream.predict_batch(Documents(docs), indices);
      for (std::size_t k = 0; k < indices.size(); ++k)
        CHECK((got.col(static_cast<Index>(k)) - expected.col(indices[k])).cwiseAbs().maxCoeff() <= 1e-5f);
    }
  }
}

TEST_CASE("an ensemble predictor gives the members' mean probabilities and attention weights", "[predictor]") {
  ModelConfig cfg;
  cfg.embedding_dim = 12;
  cfg.word_hidden = 4;
  cfg.sentence_hidden = 3;
  cfg.attention_dim = 5;
  Rng rng(3);
  const HanParams a = han_init(cfg, 30, 3, rng), b = han_init(cfg, 30, 3, rng);
  const std::vector<Document> docs = documents(17);
  for (int threads : {1, 3}) {
    for (Index batch_size : {4, 64}) {
      INFO("threads " << threads << ", batch size " << batch_size);
      std::vector<Explanation> ea, eb, ee;
      const Matrix pa = Predictor(a, cfg, threads).predict(Documents(docs), batch_size, &ea);
      const Matrix pb = Predictor(b, cfg, threads).predict(Documents(docs), batch_size, &eb);
      const Matrix pe = Predictor({&a, &b}, cfg, threads).predict(Documents(docs), batch_size, &ee);
      CHECK((pa - pb).cwiseAbs().maxCoeff() > 1e-3f);  // two different models
      CHECK((pe - (pa + pb) / 2).cwiseAbs().maxCoeff() <= 1e-6f);
      REQUIRE(ee.size() == docs.size());
      for (std::size_t d = 0; d < docs.size(); ++d) {
        REQUIRE(ee[d].sentence_weights.size() == docs[d].sentences.size());
        for (std::size_t s = 0; s < docs[d].sentences.size(); ++s) {
          CHECK(ee[d].sentence_weights[s] == Approx((ea[d].sentence_weights[s] + eb[d].sentence_weights[s]) / 2).margin(1e-6));
          for (std::size_t w = 0; w < ee[d].word_weights[s].size(); ++w)
            CHECK(ee[d].word_weights[s][w] == Approx((ea[d].word_weights[s][w] + eb[d].word_weights[s][w]) / 2).margin(1e-6));
        }
      }
    }
  }
}
