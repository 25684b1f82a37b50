// Dropout's masks: drawn per document, so a batch cut into shards gets the masks the
// whole batch would; rates are honoured; word dropout turns words into <unk>.
// (The gradients through every mask are checked in test_model.cpp.)
#include <catch2/catch.hpp>

#include "han/nn/dropout.h"
#include "han/nn/layers/attention.h"
#include "han/text/batch.h"
#include "han/text/vocab.h"
#include "support/documents.h"

using namespace han;

namespace {

struct Drawn {
  std::vector<std::int32_t> ids;
  DropoutMasks masks;
};

// Draws for documents [first, last) of `docs` as one shard starting at `first`.
Drawn draw(const std::vector<Document>& docs, Index first, Index last, const DropoutPlan& base) {
  std::vector<Index> which;
  for (Index i = first; i < last; ++i) which.push_back(i);
  const Batch batch = make_batch(Documents(docs), which);
  const std::vector<Index> sentence_lengths = mask_lengths(batch.word_mask), doc_lengths = mask_lengths(batch.sentence_mask);
  Drawn d;
  for (Index col = 0; col < batch.word_mask.cols(); ++col)
    for (Index w = 0; w < sentence_lengths[col]; ++w) d.ids.push_back(batch.ids(w, col));
  DropoutPlan plan = base;
  for (Index i = first; i < last; ++i) plan.places.push_back(i);
  d.masks = draw_dropout(plan, {sentence_lengths, doc_lengths, batch.max_sentences()}, d.ids, 6, 4, 3);
  return d;
}

Matrix side_by_side(const Matrix& a, const Matrix& b) {
  Matrix m(a.rows(), a.cols() + b.cols());
  m << a, b;
  return m;
}

DropoutPlan every_kind() {
  DropoutPlan plan;
  plan.word = 0.3;
  plan.embedding = 0.2;
  plan.sentence = 0.25;
  plan.document = 0.5;
  plan.seed = 1234;
  return plan;
}

}  // namespace

TEST_CASE("dropout masks do not depend on how the batch is cut into shards", "[dropout]") {
  const std::vector<Document> docs = han::test::random_documents(9, 5);
  const DropoutPlan plan = every_kind();
  const Drawn whole = draw(docs, 0, 9, plan);
  const Drawn left = draw(docs, 0, 4, plan), right = draw(docs, 4, 9, plan);
  std::vector<std::int32_t> ids = left.ids;
  ids.insert(ids.end(), right.ids.begin(), right.ids.end());
  CHECK(ids == whole.ids);
  CHECK(side_by_side(left.masks.embedding, right.masks.embedding) == whole.masks.embedding);
  CHECK(side_by_side(left.masks.sentence, right.masks.sentence) == whole.masks.sentence);
  CHECK(side_by_side(left.masks.document, right.masks.document) == whole.masks.document);
  DropoutPlan other = plan;
  other.seed = 1235;
  CHECK(draw(docs, 0, 9, other).masks.embedding != whole.masks.embedding);
}

TEST_CASE("dropout rates are honoured and kept values are scaled by 1/(1-p)", "[dropout]") {
  const std::vector<Document> docs = han::test::random_documents(200, 7);
  const DropoutPlan plan = every_kind();
  const Drawn d = draw(docs, 0, 200, plan);
  const Drawn none = draw(docs, 0, 200, DropoutPlan{});
  CHECK(none.masks.embedding.size() == 0);
  CHECK(none.masks.sentence.size() == 0);
  CHECK(none.masks.document.size() == 0);
  std::size_t unk = 0, was_unk = 0;
  for (std::size_t t = 0; t < d.ids.size(); ++t) {
    unk += d.ids[t] == Vocab::kUnk;
    was_unk += none.ids[t] == Vocab::kUnk;
    if (d.ids[t] != Vocab::kUnk) CHECK(d.ids[t] == none.ids[t]);
  }
  const double word_rate = static_cast<double>(unk - was_unk) / static_cast<double>(d.ids.size() - was_unk);
  CHECK(word_rate == Approx(plan.word).margin(0.03));
  for (const auto& [mask, p] : {std::pair{&d.masks.embedding, plan.embedding}, {&d.masks.sentence, plan.sentence},
                                {&d.masks.document, plan.document}}) {
    const Index zeros = (mask->array() == 0).count();
    const Index kept = (mask->array() == static_cast<Scalar>(1.0 / (1.0 - p))).count();
    CHECK(zeros + kept == mask->size());
    CHECK(static_cast<double>(zeros) / static_cast<double>(mask->size()) == Approx(p).margin(0.05));
  }
}
