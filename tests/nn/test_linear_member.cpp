// The linear member (model.linear_member): its TF-IDF features, its gradients under every
// head, its training, and how a predictor averages it in.
#include <catch2/catch.hpp>

#include <cmath>

#include "han/infer/predictor.h"
#include "han/nn/head.h"
#include "han/nn/linear_member.h"
#include "han/nn/model.h"
#include "han/nn/parameters.h"
#include "han/text/batch.h"
#include "han/train/linear_member_exact.h"
#include "han/train/linear_member_training.h"
#include "han/train/linear_weight.h"
#include "support/documents.h"
#include "support/gradcheck.h"

using namespace han;
using han::test::check_gradient;

namespace {

const auto doc = han::test::labelled_doc;

// The padded sample and an empty document.
std::vector<Document> docs_and_empty() {
  std::vector<Document> docs = han::test::padded_sample_docs();
  docs.push_back(doc(0, {}));
  return docs;
}

// The loss of docs[0..4] through the head, and (with `grads`) its gradient.
double member_loss(const LinearMemberParams& p, const OutputHead& head, const LossConfig& loss, const Documents& docs,
                   LinearMemberParams* grads) {
  const std::vector<Index> all{0, 1, 2, 3, 4};
  const BagFeatures x = linear_member_features(p, docs, all);
  Matrix d_logits;
  const double l = head_loss(head, loss, linear_member_logits(p, x), answers_batch(docs, all), 1.0, d_logits);
  if (grads) linear_member_backward(x, d_logits, *grads);
  return l;
}

void check_member_gradients(const OutputHead& head, const LossConfig& loss, const Documents& docs, Index outputs) {
  Rng rng(11);
  // With word pairs: (10, 11) is in two documents.
  LinearMemberParams p = linear_member_init(docs, 12, outputs, linear_member_pairs(docs, outputs, 2));
  REQUIRE(p.pairs.cols() == 1);
  REQUIRE(p.W.cols() == 13);
  fill_uniform(p.W, -1, 1, rng);
  fill_uniform(p.b, -1, 1, rng);
  LinearMemberParams g = zeros_like(p);
  member_loss(p, head, loss, docs, &g);
  CHECK(g.idf.isZero());  // fixed, not trained
  const auto numeric = [&] { return member_loss(p, head, loss, docs, nullptr); };
  check_gradient("linear.W", p.W, g.W, numeric);
  check_gradient("linear.b", p.b, g.b, numeric);
  CHECK(g.W.col(0).isZero());   // PAD is never a word
  CHECK(g.W.col(1).isZero());   // nor is <unk> in these documents
  CHECK_FALSE(g.W.col(2).isZero());
  CHECK_FALSE(g.W.col(12).isZero());  // the pair
}

}  // namespace

TEST_CASE("linear member features: idf from the training documents, sublinear tf, unit L2 norm", "[linear_member]") {
  // Training documents: word 2 in the first only (twice), word 3 in both, word 4 in the second.
  const Documents train(std::vector<Document>{doc(0, {{2, 3}, {2}}), doc(1, {{3, 4}})});
  const LinearMemberParams p = linear_member_init(train, 5, 2);
  REQUIRE(p.W.rows() == 2);
  REQUIRE(p.W.cols() == 5);
  CHECK(p.W.isZero());
  CHECK(p.b.isZero());
  const double idf_rare = std::log(3.0 / 2.0) + 1, idf_common = 1.0;  // ln((1 + N) / (1 + df)) + 1, N = 2
  CHECK(p.idf(2, 0) == Approx(idf_rare));
  CHECK(p.idf(3, 0) == Approx(idf_common));
  CHECK(p.idf(4, 0) == Approx(idf_rare));
  CHECK(p.idf(1, 0) == Approx(std::log(3.0) + 1));  // never seen

  const BagFeatures x = linear_member_features(p, train, {1, 0});  // in the order asked
  REQUIRE(x.start == std::vector<Index>{0, 2, 4});
  CHECK(x.ids == std::vector<std::int32_t>{3, 4, 2, 3});
  const double a = (1 + std::log(2.0)) * idf_rare, b = idf_common, norm = std::sqrt(a * a + b * b);
  CHECK(x.values[2] == Approx(a / norm));
  CHECK(x.values[3] == Approx(b / norm));
  const double norm1 = std::sqrt(idf_common * idf_common + idf_rare * idf_rare);
  CHECK(x.values[0] == Approx(idf_common / norm1));
  CHECK(x.values[1] == Approx(idf_rare / norm1));
}

TEST_CASE("linear member features and idf: the same read on two threads as on one", "[linear_member]") {
  // 1,000 documents: four parts of 256 or more, so two threads each read part of them.
  std::vector<Document> docs = han::test::random_documents(1000, 5);
  for (std::size_t i = 0; i < docs.size(); ++i) docs[i].label = static_cast<std::int32_t>(i % 2);
  const Documents train(docs);
  const Matrix pairs = linear_member_pairs(train, 2, 2);
  const LinearMemberParams one = linear_member_init(train, 30, 2, pairs, LinearText::whole, {}, 1);
  const LinearMemberParams two = linear_member_init(train, 30, 2, pairs, LinearText::whole, {}, 2);
  CHECK(one.idf == two.idf);
  std::vector<Index> order(docs.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<Index>(order.size() - 1 - i);  // any order
  const BagFeatures a = linear_member_features(one, train, order, 1), b = linear_member_features(one, train, order, 2);
  CHECK(a.start == b.start);
  CHECK(a.ids == b.ids);
  CHECK(a.values == b.values);
  REQUIRE(a.start.size() == docs.size() + 1);
  // And each document's features are its own, wherever it falls: the last asked is document 0.
  const BagFeatures first = linear_member_features(one, train, {0});
  CHECK(std::vector<std::int32_t>(b.ids.begin() + b.start[999], b.ids.end()) == first.ids);
}

TEST_CASE("linear member: the training features read with the idf are those read after it", "[linear_member]") {
  // 2,500 documents: on two threads, parts of 1,250, each read in more than one chunk.
  std::vector<Document> docs = han::test::random_documents(2500, 7);
  for (std::size_t i = 0; i < docs.size(); ++i) docs[i].label = static_cast<std::int32_t>(i % 2);
  const Documents train(docs);
  const Matrix pairs = linear_member_pairs(train, 2, 2);
  REQUIRE(pairs.cols() > 0);
  const LinearMemberParams alone = linear_member_init(train, 30, 2, pairs, LinearText::whole, {}, 1);
  for (int threads : {1, 2}) {
    const LinearMemberInit init = linear_member_init_with_features(train, 30, 2, pairs, LinearText::whole, {}, threads);
    CHECK(init.params.idf == alone.idf);
    const BagFeatures after = linear_member_features(alone, train, every_document(train));
    REQUIRE(init.train_features.start.size() == docs.size() + 1);
    CHECK(init.train_features.start == after.start);
    CHECK(init.train_features.ids == after.ids);
    CHECK(init.train_features.values == after.values);  // bit for bit
  }
}

TEST_CASE("linear member gradients through every head", "[linear_member][gradcheck]") {
  std::vector<Document> docs = docs_and_empty();
  const std::vector<std::vector<std::int32_t>> sets = {{0, 2}, {1}, {0, 1, 2}, {2}, {}};
  const float targets[] = {4, 1, 2.5, 5, 3};
  for (std::size_t i = 0; i < docs.size(); ++i) {
    docs[i].label_set = sets[i];
    docs[i].target = targets[i];
  }
  docs[1].weight = 2;
  const Documents list(docs);
  SECTION("single") { check_member_gradients(initial_head(Task::single, 3), LossConfig{}, list, 3); }
  SECTION("multilabel") { check_member_gradients(initial_head(Task::multilabel, 3), LossConfig{}, list, 3); }
  SECTION("regression") {
    TargetScale scale;
    scale.mean = 3;
    scale.sd = 1.5;
    check_member_gradients(initial_head(Task::regression, 0, scale), LossConfig{}, list, 1);
  }
}

namespace {

// Label 0 documents hold word 2, label 1 documents word 3, both among shared words 4..9.
Documents separable_docs(int n, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<Document> docs;
  for (int i = 0; i < n; ++i) {
    const std::int32_t label = i % 2;
    std::vector<std::int32_t> words{label == 0 ? 2 : 3};
    for (int k = 0; k < 6; ++k) words.push_back(static_cast<std::int32_t>(4 + rng.below(6)));
    docs.push_back(doc(label, {words}));
  }
  return Documents(docs);
}

Corpus separable_corpus() {
  Corpus c;
  c.vocab = Vocab::from_words({"<pad>", "<unk>", "yes", "no", "a", "b", "c", "d", "e", "f"});
  c.labels = {"yes", "no"};
  c.train = separable_docs(200, 1);
  c.dev = separable_docs(40, 2);
  return c;
}

}  // namespace

TEST_CASE("LIBLINEAR fits the linear member: the words that decide, C chosen on dev, the same member every time",
          "[linear_member]") {
  Config cfg;
  const Corpus corpus = separable_corpus();
  const OutputHead head = initial_head(Task::single, 2);
  const LinearMemberResult r = train_linear_member(cfg, corpus, head);
  CHECK(r.solver == LinearSolver::liblinear);
  CHECK(r.c_on_dev);
  CHECK(r.c >= kMinLinearC);
  CHECK(r.c <= kMaxLinearC);
  CHECK(r.dev_loss < 0.2);  // ln 2 = 0.69 knowing nothing
  CHECK(r.to_json()["solver"] == "liblinear");
  CHECK(r.to_json()["C"].get<double>() == r.c);
  // Word 2 ("yes") pushes toward label 0, word 3 toward label 1; the shared words far less.
  // Two labels: one fit, its weights split as +-w/2 between the rows.
  const Matrix& W = r.params.W;
  CHECK(W(0, 2) - W(1, 2) > 1.0);
  CHECK(W(1, 3) - W(0, 3) > 1.0);
  CHECK(std::abs(W(0, 5) - W(1, 5)) < 0.5 * (W(0, 2) - W(1, 2)));
  CHECK((W.row(0) + W.row(1)).isZero());

  CHECK(train_linear_member(cfg, corpus, head).params.W == r.params.W);
  cfg.model.linear_c = 2;  // as set: no search
  const LinearMemberResult set = train_linear_member(cfg, corpus, head);
  CHECK(set.c == 2);
  CHECK_FALSE(set.c_on_dev);
  Corpus no_dev = separable_corpus();
  no_dev.dev = Documents();
  cfg.model.linear_c = kAutoReal;
  const LinearMemberResult fixed = train_linear_member(cfg, no_dev, head);
  CHECK(fixed.c == kLinearCWithoutDev);
  CHECK(std::isnan(fixed.dev_loss));
}

TEST_CASE("documents of unequal weights train the linear member by SGD, keeping its best dev epoch",
          "[linear_member]") {
  Config cfg;
  cfg.optimizer.name = OptimizerName::adamw;
  cfg.optimizer.lr = 0.002;
  cfg.batching.batch_size = 16;
  Corpus corpus = separable_corpus();
  corpus.train.set_weight(0, 2.0f);
  const OutputHead head = initial_head(Task::single, 2);
  const LinearMemberResult r = train_linear_member(cfg, corpus, head);
  CHECK(r.solver == LinearSolver::sgd);
  CHECK(r.best_epoch >= 1);
  CHECK(r.best_epoch <= r.epochs);
  CHECK(r.epochs <= kLinearMemberEpochs);
  CHECK(r.dev_loss < 0.2);
  CHECK(r.params.W(0, 2) - r.params.W(1, 2) > 1.0);
  CHECK(train_linear_member(cfg, corpus, head).params.W == r.params.W);
  Corpus no_dev = corpus;
  no_dev.dev = Documents();
  const LinearMemberResult last = train_linear_member(cfg, no_dev, head);
  CHECK(last.epochs == kLinearMemberEpochs);
  CHECK(last.best_epoch == kLinearMemberEpochs);
}

TEST_CASE("a predictor averages the linear member in with its weight, the answers tempered as a whole",
          "[linear_member][predictor]") {
  ModelConfig cfg;
  cfg.embedding_dim = 5;
  cfg.word_hidden = 3;
  cfg.sentence_hidden = 4;
  cfg.attention_dim = 3;
  Rng rng(3);
  const HanParams han = han_init(cfg, 12, 3, rng);
  const Documents docs(docs_and_empty());
  LinearMemberParams linear = linear_member_init(docs, 12, 3);
  fill_uniform(linear.W, -2, 2, rng);
  fill_uniform(linear.b, -1, 1, rng);
  const std::vector<Index> all{0, 1, 2, 3, 4};
  const Matrix p_han = Predictor(han, cfg, 1).predict(docs, 2);
  const Matrix p_linear = head_answers(initial_head(Task::single, 3),
                                       linear_member_logits(linear, linear_member_features(linear, docs, all)));
  const Matrix both = Predictor({&han}, cfg, 1, initial_head(Task::single, 3), {&linear, 0.5}).predict(docs, 2);
  CHECK((both - (p_han + p_linear) / 2).cwiseAbs().maxCoeff() < 1e-5);
  CHECK((both - p_han).cwiseAbs().maxCoeff() > 1e-3);  // the member counts
  const Matrix mostly = Predictor({&han}, cfg, 1, initial_head(Task::single, 3), {&linear, 0.8}).predict(docs, 2);
  CHECK((mostly - (0.2f * p_han + 0.8f * p_linear)).cwiseAbs().maxCoeff() < 1e-5);

  // A temperature divides the log of the blend, as for any ensemble.
  OutputHead tempered = initial_head(Task::single, 3);
  tempered.temperature = 2;
  const Matrix cooled = Predictor({&han}, cfg, 1, tempered, {&linear, 0.8}).predict(docs, 2);
  const Matrix expected = ensemble_answers(tempered, 0.2f * p_han + 0.8f * p_linear);
  CHECK((cooled - expected).cwiseAbs().maxCoeff() < 1e-5);
}

namespace {

// A HAN too small and untrained to tell the separable corpus's labels apart.
HanParams untrained_han(const Config& cfg, Index vocab_size) {
  Rng rng(5);
  return han_init(cfg.model, vocab_size, 2, rng);
}

Config small_han_config() {
  Config cfg;
  cfg.model.embedding_dim = 4;
  cfg.model.word_hidden = 3;
  cfg.model.sentence_hidden = 3;
  cfg.model.attention_dim = 3;
  cfg.optimizer.name = OptimizerName::adamw;
  cfg.optimizer.lr = 0.002;
  cfg.batching.batch_size = 16;
  cfg.trainer.threads = 1;
  return cfg;
}

}  // namespace

TEST_CASE("model.linear_weight auto: the share with the lowest dev loss, high for a good member and low for a bad one",
          "[linear_member][linear_weight]") {
  const Config cfg = small_han_config();
  const Corpus corpus = separable_corpus();
  const OutputHead head = initial_head(Task::single, 2);
  const HanParams han = untrained_han(cfg, static_cast<Index>(corpus.vocab.size()));
  const std::vector<BatchIndices> batches = inference_batches(corpus.dev, 8);
  const LinearMemberResult good = train_linear_member(cfg, corpus, head);

  const Matrix p_han = Predictor({&han}, cfg.model, 1, head).predict(corpus.dev, batches);
  const Matrix p_good = linear_member_answers(good.params, head, corpus.dev);
  std::vector<double> chosen_losses;
  for (const bool calibrated : {false, true}) {
    INFO("calibrated: " << calibrated);
    // The trained member separates dev, the untrained HAN does not: the top of the grid
    // (with a temperature, one step below: sharpened, a little HAN costs less).
    const LinearWeightChoice high = choose_linear_weight(cfg, {&han}, good.params, head, corpus.dev, batches, calibrated);
    CHECK(high.how == LinearWeightChoice::How::on_dev);
    CHECK(high.weight >= 0.85);
    CHECK(high.equal_weight == Approx(0.5));
    CHECK(high.dev_loss < high.equal_loss);
    // Its loss is the blend's at that weight, as calibrated or not.
    CHECK(high.dev_loss == Approx(blend_dev_losses(head, p_han, p_good, corpus.dev, {high.weight}, calibrated)[0]));
    chosen_losses.push_back(high.dev_loss);

    // The same member with its words turned against the labels: the bottom.
    LinearMemberParams wrong = good.params;
    wrong.W = -wrong.W;
    const LinearWeightChoice low = choose_linear_weight(cfg, {&han}, wrong, head, corpus.dev, batches, calibrated);
    CHECK(low.weight <= 0.15);
    CHECK(low.dev_loss < low.equal_loss);
  }

  // The chosen share's loss is the lowest the blend reaches on the grid, plain or calibrated.
  // Calibration keeps a fitted temperature only when it helps dev (han::choose_temperature):
  // this dev set is separated by the member, so the fit runs to its search bound and every
  // blend keeps T = 1, its calibrated loss the plain one.
  const std::vector<double> shares{0.25, 0.5, 0.75};
  const std::vector<double> plain = blend_dev_losses(head, p_han, p_good, corpus.dev, shares, false);
  const std::vector<double> tempered = blend_dev_losses(head, p_han, p_good, corpus.dev, shares, true);
  for (std::size_t k = 0; k < shares.size(); ++k) {
    CHECK(chosen_losses[0] <= plain[k]);
    CHECK(chosen_losses[1] <= tempered[k]);
    CHECK(tempered[k] == Approx(plain[k]));
  }
}

TEST_CASE("model.linear_weight as set, and the equal share without a dev set", "[linear_member][linear_weight]") {
  Config cfg = small_han_config();
  const Corpus corpus = separable_corpus();
  const OutputHead head = initial_head(Task::single, 2);
  const HanParams han = untrained_han(cfg, static_cast<Index>(corpus.vocab.size()));
  const LinearMemberResult member = train_linear_member(cfg, corpus, head);
  const std::vector<BatchIndices> batches = inference_batches(corpus.dev, 8);

  const LinearWeightChoice equal = choose_linear_weight(cfg, {&han, &han}, member.params, head, Documents(), {}, false);
  CHECK(equal.how == LinearWeightChoice::How::no_dev);
  CHECK(equal.weight == Approx(1.0 / 3));
  CHECK(std::isnan(equal.dev_loss));

  cfg.model.linear_weight = 0.3;
  const LinearWeightChoice set = choose_linear_weight(cfg, {&han}, member.params, head, corpus.dev, batches, true);
  CHECK(set.how == LinearWeightChoice::How::set);
  CHECK(set.weight == Approx(0.3));

  // A run's member carries its settled weight, and reports it.
  const LinearMemberResult weighted = train_weighted_linear_member(cfg, corpus, {&han}, head, batches, true);
  CHECK(weighted.weight == Approx(0.3));
  CHECK(weighted.to_json()["weight"].get<double>() == Approx(0.3));
}

TEST_CASE("LIBLINEAR fits the linear member for multi-label (a model per label) and regression (ridge)",
          "[linear_member]") {
  Config cfg;
  Corpus corpus = separable_corpus();
  // Multi-label: "yes" documents carry labels {0, 1}, "no" documents {1}: label 1 is on
  // every document (no boundary to fit), label 0 follows word 2.
  std::vector<Document> train, dev;
  for (const auto& [from, to] : {std::pair{&corpus.train, &train}, std::pair{&corpus.dev, &dev}})
    for (const DocumentView d : *from) {
      Document x = doc(d.label, d.sentences.ids());
      x.label_set = d.label == 0 ? std::vector<std::int32_t>{0, 1} : std::vector<std::int32_t>{1};
      x.target = d.label == 0 ? 5.0f : 1.0f;
      to->push_back(x);
    }
  corpus.train = Documents(train);
  corpus.dev = Documents(dev);
  const LinearMemberResult multi = train_linear_member(cfg, corpus, initial_head(Task::multilabel, 2));
  CHECK(multi.solver == LinearSolver::liblinear);
  CHECK(multi.params.W(0, 2) - multi.params.W(0, 3) > 1.0);
  CHECK(multi.params.W.row(1).isZero());  // label 1 is always on: its bias says so
  CHECK(multi.params.b(1, 0) > 3);
  const Matrix p = linear_member_answers(multi.params, initial_head(Task::multilabel, 2), corpus.dev);
  CHECK(p(0, 0) > 0.8);  // dev document 0 is a "yes"
  CHECK(p(0, 1) < 0.2);

  TargetScale scale;
  scale.mean = 3;
  scale.sd = 2;
  const OutputHead regression = initial_head(Task::regression, 0, scale);
  const LinearMemberResult ridge = train_linear_member(cfg, corpus, regression);
  CHECK(ridge.solver == LinearSolver::liblinear);
  const Matrix v = linear_member_answers(ridge.params, regression, corpus.dev);
  CHECK(v(0, 0) == Approx(5).margin(0.5));
  CHECK(v(0, 1) == Approx(1).margin(0.5));
}
