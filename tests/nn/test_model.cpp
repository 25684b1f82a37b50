// Whole-model gradients (every mask mode and pooling, padding present) and the
// invariance of masked models to what else is in the batch.
#include <catch2/catch.hpp>

#include <functional>

#include <cmath>
#include <set>
#include <string>

#include "han/text/batch.h"
#include "han/nn/loss.h"
#include "han/nn/model.h"
#include "han/nn/parameters.h"
#include "han/nn/word_input_table.h"
#include "nn/gradcheck_han.h"
#include "support/documents.h"
#include "support/gradcheck.h"

using namespace han;
using han::test::check_gradient;
using han::test::kHanLossScale;
using han::test::kHanStep;

namespace {

ModelConfig small_config(MaskMode mask, Pooling pooling) {
  ModelConfig cfg;
  cfg.embedding_dim = 5;
  cfg.word_hidden = 3;
  cfg.sentence_hidden = 4;
  cfg.attention_dim = 3;
  cfg.mask = mask;
  cfg.pooling = pooling;
  return cfg;
}

using han::test::labelled_doc;

// Documents of different shapes so that both word and sentence padding occur.
std::vector<Document> sample_docs() { return han::test::padded_sample_docs(); }

// kHanLossScale x the batch's mean loss (nn/gradcheck_han.h).
double batch_loss(const HanParams& p, const ModelConfig& cfg, const Batch& batch,
                  const DropoutPlan* dropout, Matrix* d_logits, HanCache& c) {
  const Matrix logits = han_forward(p, cfg, batch, dropout, c);
  Matrix d;
  const double scale = kHanLossScale / static_cast<double>(batch.size());
  const double loss = softmax_cross_entropy(logits, batch.labels, scale, d);
  if (d_logits) *d_logits = d;
  return loss * scale;
}

// The gradient of batch_loss at p, c left holding the forward pass.
HanParams batch_gradient(const HanParams& p, const ModelConfig& cfg, const Batch& batch, const DropoutPlan& dropout,
                         HanCache& c) {
  Matrix d_logits;
  batch_loss(p, cfg, batch, &dropout, &d_logits, c);
  HanParams g = zeros_like(p);
  han_backward(p, c, d_logits, g);
  return g;
}

// Checks one column of the embedding table's gradient against finite differences of loss.
void check_embedding_column(ParamRef& r, Index id, const std::function<double()>& loss) {
  Matrix column = r.value->col(id);
  const Matrix g_column = r.grad->col(id);
  check_gradient("embedding column " + std::to_string(id), column, g_column, [&] {
    const Vector saved = r.value->col(id);
    r.value->col(id) = column;
    const double l = loss();
    r.value->col(id) = saved;
    return l;
  }, 24, kHanStep);
}

// A small model with the bag-of-words term (12 words, 3 classes), its bag weights drawn
// after the rest: they start at 0.
HanParams bag_model(const ModelConfig& cfg, std::uint64_t seed) {
  Rng rng(seed);
  HanParams p = han_init(cfg, 12, 3, rng);
  fill_uniform(p.bag.W, -1, 1, rng);
  return p;
}

}  // namespace

TEST_CASE("HAN gradients when each distinct word is projected once (no embedding dropout)", "[model][gradcheck]") {
  const std::vector<Document> docs = sample_docs();
  const Batch batch = make_batch(Documents(docs), {0, 1, 2, 3});
  const ModelConfig cfg = small_config(MaskMode::renorm, Pooling::attention);
  Rng rng(18);
  HanParams p = han_init(cfg, 12, 3, rng);
  han::test::widen_for_gradcheck(p, rng);
  DropoutPlan dropout;  // word dropout (words read as <unk>) keeps the distinct-word path
  dropout.word = 0.2;
  dropout.sentence = 0.3;
  dropout.seed = 7;
  HanCache c;
  HanParams g = batch_gradient(p, cfg, batch, dropout, c);
  REQUIRE(c.dropout.embedding.size() == 0);
  // Fewer input columns than tokens: words repeat across the batch.
  REQUIRE(c.x.cols() == static_cast<Index>(c.input_ids.size()));
  REQUIRE(c.x.cols() < static_cast<Index>(c.token_ids.size()));
  auto loss = [&] {
    HanCache c2;
    return batch_loss(p, cfg, batch, &dropout, nullptr, c2);
  };
  for (ParamRef& r : zip_params(p, g)) {
    if (r.value->size() == 0) continue;
    if (r.name == "embedding.table") {
      for (std::int32_t id : c.input_ids) check_embedding_column(r, id, loss);
      continue;
    }
    check_gradient(r.name, *r.value, *r.grad, loss, 24, kHanStep);
  }
}

TEST_CASE("HAN gradients in every mask mode and pooling, with padding", "[model][gradcheck]") {
  const std::vector<Document> docs = sample_docs();
  const Batch batch = make_batch(Documents(docs), {0, 1, 2, 3});
  REQUIRE(batch.word_padding_fraction() > 0.3);
  REQUIRE(batch.sentence_padding_fraction() > 0.2);
  for (MaskMode mode : {MaskMode::none, MaskMode::renorm, MaskMode::additive}) {
    for (Pooling pooling : {Pooling::attention, Pooling::mean}) {
      DYNAMIC_SECTION(to_string(mode) << " / " << to_string(pooling)) {
        const ModelConfig cfg = small_config(mode, pooling);
        Rng rng(17);
        HanParams p = han_init(cfg, 12, 3, rng);
        han::test::widen_for_gradcheck(p, rng);
        // Non-zero attention biases, so padded scores carry gradient under `none`.
        p.word_attention.b.setConstant(0.3f);
        p.sentence_attention.b.setConstant(-0.2f);
        // Every kind of dropout at once: the masks are fixed by the plan's seed.
        DropoutPlan dropout;
        dropout.word = 0.2;
        dropout.embedding = 0.25;
        dropout.sentence = 0.3;
        dropout.document = 0.25;
        dropout.seed = 99;
        HanCache c;
        HanParams g = batch_gradient(p, cfg, batch, dropout, c);
        REQUIRE(c.dropout.embedding.size() > 0);
        REQUIRE(c.dropout.sentence.size() > 0);
        auto loss = [&] {
          HanCache c2;
          return batch_loss(p, cfg, batch, &dropout, nullptr, c2);
        };
        for (ParamRef& r : zip_params(p, g)) {
          if (r.value->size() == 0) continue;  // bag.W without model.bag (tested below with it)
          if (pooling == Pooling::mean && r.name.find("attention.") != std::string::npos) {
            CHECK(r.grad->isZero());  // mean pooling reads no attention weight
            continue;
          }
          if (r.name == "embedding.table") {
            // Only the columns of words that occur: check a few of them whole, <unk> (the
            // words that word dropout replaced) among them.
            for (Index id : {1, 2, 5, 11}) check_embedding_column(r, id, loss);
            CHECK(r.grad->col(0).isZero());  // PAD never enters the network
            continue;
          }
          check_gradient(r.name, *r.value, *r.grad, loss, 24, kHanStep);
        }
      }
    }
  }
}

TEST_CASE("each backward stage leaves its tensors' gradients final and later stages' untouched", "[model]") {
  // What overlapping the gradient sum with the backward pass relies on (train/gradient_workers.h).
  const std::vector<Document> docs = sample_docs();
  const Batch batch = make_batch(Documents(docs), {0, 1, 2, 3});
  ModelConfig cfg = small_config(MaskMode::renorm, Pooling::attention);
  cfg.bag = Bag::words;
  const HanParams p = bag_model(cfg, 5);
  DropoutPlan dropout;
  dropout.embedding = 0.2;
  dropout.seed = 3;
  // Backward consumes its forward's cache: each pass has a forward of its own (the same masks).
  HanCache c, c_whole;
  Matrix d_logits;
  batch_loss(p, cfg, batch, &dropout, &d_logits, c_whole);
  HanParams whole = zeros_like(p);
  han_backward(p, c_whole, d_logits, whole);
  batch_loss(p, cfg, batch, &dropout, &d_logits, c);
  HanParams staged = zeros_like(p);
  std::set<std::string> seen;
  for (BackwardStage stage : kBackwardStages) {
    han_backward_stage(p, c, stage, d_logits, staged);
    for (const ParamRef& r : zip_params(staged, whole)) {
      const BackwardStage owner = backward_stage_of(r.name);
      INFO(r.name << " after stage " << static_cast<int>(stage));
      if (owner <= stage) {
        CHECK(r.value->cwiseEqual(*r.grad).all());  // final: what the whole pass gives, bit for bit
        CHECK_FALSE(r.value->isZero());
        seen.insert(r.name);
      } else {
        CHECK(r.value->isZero());  // not yet touched
      }
    }
  }
  CHECK(seen.size() == zip_params(staged, whole).size());
  CHECK(backward_stage_of("word_gru.fwd.W") == BackwardStage::word_input_weights);
  CHECK(backward_stage_of("word_gru.bwd.U") == BackwardStage::word_recurrence);
  CHECK(backward_stage_of("embedding.table") == BackwardStage::word_recurrence);
  CHECK(backward_stage_of("sentence_gru.fwd.W") == BackwardStage::upper);
}

TEST_CASE("the parameter count formula matches the allocated model", "[model]") {
  const ModelConfig cfg = small_config(MaskMode::renorm, Pooling::attention);
  Rng rng(1);
  const HanParams p = han_init(cfg, 37, 5, rng);
  CHECK(han_parameter_count(cfg, 37, 5) == static_cast<double>(parameter_count(p)));
}

TEST_CASE("masked models give a document the same probabilities alone and in a padded batch",
          "[model][invariance]") {
  std::vector<Document> docs = sample_docs();
  // A much longer document: many more sentences and words than document 2.
  std::vector<std::vector<std::int32_t>> long_sentences;
  for (int s = 0; s < 25; ++s) long_sentences.push_back(std::vector<std::int32_t>(40, 2 + s % 9));
  docs.push_back(labelled_doc(0, long_sentences));
  for (MaskMode mode : {MaskMode::none, MaskMode::renorm, MaskMode::additive}) {
    const ModelConfig cfg = small_config(mode, Pooling::attention);
    Rng rng(23);
    HanParams p = han_init(cfg, 12, 3, rng);
    p.word_attention.b.setConstant(0.5f);
    p.sentence_attention.b.setConstant(0.5f);
    HanCache c1, c2;
    const Matrix alone = softmax_columns(han_forward(p, cfg, make_batch(Documents(docs), {2}), nullptr, c1));
    const Matrix batched =
        softmax_columns(han_forward(p, cfg, make_batch(Documents(docs), {4, 2, 0}), nullptr, c2));
    const float diff = (alone.col(0) - batched.col(1)).cwiseAbs().maxCoeff();
    INFO("mask " << to_string(mode) << " max |diff| " << diff);
    if (mode == MaskMode::none)
      CHECK(diff > 1e-3f);
    else
      CHECK(diff <= 1e-5f);
  }
}

TEST_CASE("prediction through the word input table gives the embedding path's logits", "[model]") {
  const std::vector<Document> docs = sample_docs();
  for (MaskMode mode : {MaskMode::none, MaskMode::renorm}) {
    ModelConfig cfg = small_config(mode, Pooling::attention);
    cfg.embedding_dim = 9;  // the table is used while 6Hw <= 2E: 18 <= 18
    Rng rng(31);
    const HanParams p = han_init(cfg, 12, 3, rng);
    WordInputTable table(p);
    REQUIRE(table.table() != nullptr);
    table.fill(Documents(docs), {2});     // in parts, as a stream of batches would: {3, 4, 5} first,
    table.fill(Documents(docs), {0, 1});  // then the rest of documents 0 and 1
    table.fill(Documents(docs), {3});
    const Batch batch = make_batch(Documents(docs), {0, 1, 2, 3});
    HanCache with_embeddings, with_table;
    const Matrix expected = han_forward(p, cfg, batch, nullptr, with_embeddings, false);
    const Matrix got = han_forward(p, cfg, batch, nullptr, with_table, false, table.table());
    INFO("mask " << to_string(mode));
    CHECK((expected - got).cwiseAbs().maxCoeff() <= 1e-5f);
    CHECK((with_embeddings.word_attention.alpha - with_table.word_attention.alpha).cwiseAbs().maxCoeff() <= 1e-5f);
    CHECK(with_table.x.size() == 0);  // the embeddings were never gathered
  }
}

TEST_CASE("the word input table fills its columns alike on one thread and on several", "[model]") {
  ModelConfig cfg = small_config(MaskMode::renorm, Pooling::attention);
  cfg.embedding_dim = 9;  // the table is used while 6Hw <= 2E
  Rng rng(5);
  const Index words = 150;  // several products of a few dozen words each
  const HanParams p = han_init(cfg, words, 3, rng);
  std::vector<Document> docs(1);
  for (std::int32_t id = 2; id < words; ++id) docs[0].sentences.push_back({id});
  WordInputTable one(p), two(p);
  one.fill(Documents(docs), {0}, 1);
  two.fill(Documents(docs), {0}, 2);
  REQUIRE(one.table() != nullptr);
  const Matrix& a = *one.table();
  const Matrix& b = *two.table();
  CHECK(a.rightCols(words - 2) == b.rightCols(words - 2));
  // Each column is the word's input side, the same as the product for that word alone.
  WordInputTable alone(p);
  alone.fill(Documents({labelled_doc(0, {{77}})}), {0});
  CHECK(alone.table()->col(77) == a.col(77));
}

TEST_CASE("the word input table is not used when it would outgrow the embeddings", "[model]") {
  const ModelConfig cfg = small_config(MaskMode::renorm, Pooling::attention);  // 6Hw = 18 > 2E = 10
  Rng rng(3);
  const HanParams p = han_init(cfg, 12, 3, rng);
  WordInputTable table(p);
  table.fill(Documents(sample_docs()), {0, 1});
  CHECK(table.table() == nullptr);
}

TEST_CASE("bag-of-words features: sublinear counts, unit L2 norm per document, each word once", "[model][bag]") {
  // Document 0: word 5 three times, word 2 once; document 1: no tokens; document 2: word 7.
  const BagFeatures x = bag_features({5, 2, 5, 5, 7}, {4, 0, 1});
  REQUIRE(x.start == std::vector<Index>{0, 2, 2, 3});
  CHECK(x.ids == std::vector<std::int32_t>{2, 5, 7});
  const double a = 1.0, b = 1.0 + std::log(3.0), norm = std::sqrt(a * a + b * b);
  CHECK(x.values[0] == Approx(a / norm));
  CHECK(x.values[1] == Approx(b / norm));
  CHECK(x.values[2] == Approx(1.0));
}

TEST_CASE("HAN gradients with the bag-of-words term, word dropout included", "[model][gradcheck][bag]") {
  const std::vector<Document> docs = sample_docs();
  const Batch batch = make_batch(Documents(docs), {0, 1, 2, 3});
  ModelConfig cfg = small_config(MaskMode::renorm, Pooling::attention);
  cfg.bag = Bag::words;
  Rng fresh(23);
  CHECK(han_init(cfg, 12, 3, fresh).bag.W.isZero());  // starts with no opinion
  HanParams p = bag_model(cfg, 23);
  REQUIRE(p.bag.W.rows() == 3);
  REQUIRE(p.bag.W.cols() == 12);
  DropoutPlan dropout;
  dropout.word = 0.2;
  dropout.seed = 7;
  HanCache c;
  Matrix d_logits;
  batch_loss(p, cfg, batch, &dropout, &d_logits, c);
  HanParams g = zeros_like(p);
  han_backward(p, c, d_logits, g);
  auto loss = [&] {
    HanCache c2;
    return batch_loss(p, cfg, batch, &dropout, nullptr, c2);
  };
  check_gradient("bag.W", p.bag.W, g.bag.W, loss, 24, kHanStep);
  check_gradient("output.W", p.output.W, g.output.W, loss, 24, kHanStep);
  CHECK(g.bag.W.col(0).isZero());  // PAD is never a word of the bag
  CHECK_FALSE(g.bag.W.col(2).isZero());
  CHECK(han_parameter_count(cfg, 12, 3) == static_cast<double>(parameter_count(p)));

  // The term moves the logits by W x: with the HAN's output layer zeroed, the logits are the bag's alone.
  p.output.W.setZero();
  p.output.b.setZero();
  HanCache c3;
  const Matrix logits = han_forward(p, cfg, batch, nullptr, c3);
  const BagFeatures x = bag_features(c3.token_ids, {6, 5, 3, 7});
  for (Index b = 0; b < 4; ++b) {
    Vector expected = Vector::Zero(3);
    for (Index k = x.start[b]; k < x.start[b + 1]; ++k) expected += x.values[k] * p.bag.W.col(x.ids[k]);
    CHECK((logits.col(b) - expected).norm() < 1e-5);
  }
}
