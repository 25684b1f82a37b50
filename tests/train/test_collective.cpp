// The ranks of a job: a process alone is one rank, gradients travel as flat buffers that
// keep every value, and ranks that read different inputs are told apart.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "han/core/random.h"
#include "han/nn/model.h"
#include "han/nn/parameters.h"
#include "han/train/collective.h"
#include "han/train/gradient_buffer.h"
#include "han/train/rank_agreement.h"

using namespace han;

namespace {

HanParams random_params(std::uint64_t seed) {
  ModelConfig cfg;
  cfg.embedding_dim = 6;
  cfg.word_hidden = 3;
  cfg.sentence_hidden = 3;
  cfg.attention_dim = 4;
  Rng rng(seed);
  return han_init(cfg, 20, 3, rng);
}

// A job of `hashes.size()` ranks seen from rank 0, whose ranks hashed their inputs alike
// except where `hashes` says otherwise (for the binary, the config and the data in turn).
class FakeJob : public SingleProcess {
 public:
  explicit FakeJob(std::vector<std::vector<std::uint64_t>> answers) : answers_(std::move(answers)) {}
  using SingleProcess::all_gather;
  int ranks() const override { return static_cast<int>(answers_.front().size()); }
  std::vector<std::uint64_t> all_gather(std::uint64_t) override { return answers_.at(calls_++); }

 private:
  std::vector<std::vector<std::uint64_t>> answers_;
  std::size_t calls_ = 0;
};

}  // namespace

TEST_CASE("a process alone is rank 0 of 1 and its collectives return its own values", "[collective]") {
  SingleProcess alone;
  CHECK(alone.rank() == 0);
  CHECK(alone.ranks() == 1);
  CHECK(alone.any(true));
  CHECK_FALSE(alone.any(false));
  CHECK(alone.all_gather(std::vector<std::int32_t>{3, 1}) == std::vector<std::int32_t>{3, 1});
  CHECK(alone.all_gather(std::uint64_t{42}) == std::vector<std::uint64_t>{42});
}

TEST_CASE("a gradient packed and unpacked keeps every dense value and the embedding columns named", "[collective]") {
  const HanParams g = random_params(1);
  const std::vector<std::int32_t> ids = {2, 7, 19};
  std::vector<Scalar> buffer;
  pack_gradient(g, ids, buffer);
  CHECK(buffer.size() == gradient_buffer_size(g, ids.size()));
  CHECK(buffer.size() == static_cast<std::size_t>(parameter_count(g) - g.embedding.table.size() + 3 * 6));

  HanParams assigned = zeros_like(g);
  unpack_gradient(buffer, ids, Unpack::assign, assigned);
  HanParams added = random_params(2);
  const HanParams before = added;
  unpack_gradient(buffer, ids, Unpack::add, added);
  std::vector<const Matrix*> gs, as, bs;
  HanParams::fields(g, [&](const std::string&, const Matrix& m) { gs.push_back(&m); });
  HanParams::fields(before, [&](const std::string&, const Matrix& m) { bs.push_back(&m); });
  std::size_t i = 0;
  HanParams::fields(assigned, [&](const std::string& name, const Matrix& m) {
    INFO(name);
    if (name != "embedding.table") CHECK(m == *gs[i]);
    ++i;
  });
  i = 0;
  HanParams::fields(added, [&](const std::string& name, const Matrix& m) {
    INFO(name);
    if (name != "embedding.table") CHECK(m == Matrix(*gs[i] + *bs[i]));
    ++i;
  });
  for (Index col = 0; col < g.embedding.table.cols(); ++col) {
    const bool named = col == 2 || col == 7 || col == 19;
    CHECK(assigned.embedding.table.col(col) == (named ? Vector(g.embedding.table.col(col)) : Vector::Zero(6)));
    const Vector old_col = before.embedding.table.col(col);
    CHECK(added.embedding.table.col(col) == (named ? Vector(g.embedding.table.col(col) + old_col) : old_col));
  }
}

TEST_CASE("a gradient packed in its backward stages' parts: the parts together hold the whole, each tensor once",
          "[collective]") {
  const HanParams g = random_params(3);
  const std::vector<std::int32_t> ids = {1, 4};
  std::vector<Scalar> whole;
  pack_gradient(g, ids, whole);
  std::size_t total = 0;
  HanParams rebuilt = zeros_like(g);
  for (BackwardStage stage : kBackwardStages) {
    std::vector<Scalar> part;
    pack_gradient(g, ids, part, stage);
    CHECK(part.size() == gradient_buffer_size(g, ids.size(), stage));
    CHECK_FALSE(part.empty());
    total += part.size();
    unpack_gradient(part, ids, Unpack::add, rebuilt, stage);  // each value added once, or it would be doubled
  }
  CHECK(total == whole.size());
  std::vector<Scalar> again;
  pack_gradient(rebuilt, ids, again);
  CHECK(again == whole);
  // The embedding columns travel with the word GRU's recurrent weights.
  CHECK(gradient_buffer_size(g, 3, BackwardStage::word_recurrence) - gradient_buffer_size(g, 0, BackwardStage::word_recurrence) == 3 * 6);
  CHECK(gradient_buffer_size(g, 3, BackwardStage::upper) == gradient_buffer_size(g, 0, BackwardStage::upper));
}

TEST_CASE("ranks whose binary, config or data differ from rank 0's are refused, naming the first", "[collective]") {
  const RankInputs mine{1, 2, 3};
  FakeJob same({{1, 1, 1}, {2, 2, 2}, {3, 3, 3}});
  CHECK_NOTHROW(require_same_inputs(same, mine));
  FakeJob data({{1, 1, 1}, {2, 2, 2}, {3, 3, 4}});
  CHECK_THROWS_WITH(require_same_inputs(data, mine),
                    "rank 2's data (the documents as read) differs from rank 0's: every rank must run the same han on "
                    "the same config and data");
  FakeJob binary({{1, 5, 6}, {2, 2, 2}, {3, 3, 3}});
  CHECK_THROWS_AS(require_same_inputs(binary, mine), JobWideError);
}

TEST_CASE("the data hash tells corpora apart by a single word id, label or word", "[collective]") {
  Corpus corpus;
  corpus.labels = {"neg", "pos"};
  std::vector<Document> train(2);
  train[0].label = 1;
  train[0].sentences = {{1, 2}, {3}};
  train[1].label = 0;
  train[1].sentences = {{4}};
  corpus.train = Documents(train);
  const Config cfg;
  const RankInputs base = hash_rank_inputs("han 0.1.0", cfg, corpus);
  CHECK(hash_rank_inputs("han 0.1.0", cfg, corpus).data == base.data);
  CHECK(hash_rank_inputs("han 0.1.1", cfg, corpus).binary != base.binary);
  Corpus moved = corpus;  // the same ids, sentences cut elsewhere
  std::vector<Document> cut = train;
  cut[0].sentences = {{1}, {2, 3}};
  moved.train = Documents(cut);
  CHECK(hash_rank_inputs("han 0.1.0", cfg, moved).data != base.data);
  Corpus relabelled = corpus;
  std::vector<Document> other_labels = train;
  other_labels[1].label = 1;
  relabelled.train = Documents(other_labels);
  CHECK(hash_rank_inputs("han 0.1.0", cfg, relabelled).data != base.data);
  Config other = cfg;
  other.trainer.seed += 1;
  CHECK(hash_rank_inputs("han 0.1.0", other, corpus).config != base.config);
}

TEST_CASE("rank shares cover a list once, in contiguous blocks whose sizes differ by at most one", "[collective]") {
  for (const std::size_t n : {0, 1, 5, 12, 1001})
    for (const int ranks : {1, 2, 3, 4, 7}) {
      INFO(n << " documents, " << ranks << " ranks");
      std::int64_t next = 0, smallest = static_cast<std::int64_t>(n), largest = 0;
      for (int r = 0; r < ranks; ++r) {
        const RankShare s = rank_share(n, r, ranks);
        CHECK(s.first == next);
        next = s.last;
        smallest = std::min(smallest, s.last - s.first);
        largest = std::max(largest, s.last - s.first);
      }
      CHECK(next == static_cast<std::int64_t>(n));
      CHECK(largest - smallest <= 1);
    }
}
