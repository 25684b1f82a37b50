// GradientWorkers: a batch's gradient summed over its shards' workers is the gradient of the
// whole batch, for any thread count, and ranks summing along their chain (in-process ranks
// stand in for mpirun) give the bits one process with as many threads gives.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>

#include "han/nn/head.h"
#include "han/nn/model.h"
#include "han/nn/parameters.h"
#include "han/text/batch.h"
#include "han/train/collective.h"
#include "han/train/gradient_workers.h"
#include "support/documents.h"

using namespace han;

namespace {

ModelConfig small_model_config() {
  ModelConfig cfg;
  cfg.embedding_dim = 5;
  cfg.word_hidden = 3;
  cfg.sentence_hidden = 4;
  cfg.attention_dim = 3;
  return cfg;
}

// Twelve documents of 1-4 sentences over words 2..29, labels 0..2.
std::vector<Document> labelled_documents() {
  std::vector<Document> docs = han::test::random_documents(12, 8);
  for (std::size_t i = 0; i < docs.size(); ++i) docs[i].label = static_cast<std::int32_t>(i % 3);
  return docs;
}

// Every kind of dropout: the masks follow each document, not the shard it lands in.
DropoutPlan every_dropout() {
  DropoutPlan plan;
  plan.word = 0.2;
  plan.embedding = 0.2;
  plan.sentence = 0.2;
  plan.document = 0.2;
  plan.seed = 41;
  return plan;
}

struct Fixture {
  ModelConfig cfg = small_model_config();
  Documents docs{labelled_documents()};
  std::vector<Index> batch{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  HanParams params;
  Fixture() {
    Rng rng(3);
    params = han_init(cfg, 30, 3, rng);
    fill_uniform(params.word_attention.ctx, -1, 1, rng);  // attention that is not nearly uniform
    fill_uniform(params.sentence_attention.ctx, -1, 1, rng);
  }
  Index size() const { return static_cast<Index>(batch.size()); }
};

struct Gradient {
  double loss = 0;  // the batch's mean
  HanParams grads;
};

// The batch's mean loss and its gradient computed whole, in one forward and backward pass.
Gradient whole_batch_gradient(const Fixture& f, bool train_embeddings) {
  const Batch batch = make_batch(f.docs, f.batch);
  HanCache c;
  const DropoutPlan dropout = every_dropout();
  const Matrix logits = han_forward(f.params, f.cfg, batch, &dropout, c);
  Matrix d_logits;
  Gradient g;
  const double scale = 1.0 / static_cast<double>(f.size());
  g.loss = head_loss(OutputHead{}, LossConfig{}, logits, batch, scale, d_logits) * scale;
  g.grads = zeros_like(f.params);
  han_backward(f.params, c, d_logits, g.grads, train_embeddings);
  return g;
}

// Every tensor within float rounding of the reference (relative to its largest value).
void check_close(HanParams& got, HanParams& want) {
  for (ParamRef& r : zip_params(got, want)) {
    if (r.grad->size() == 0) continue;  // bag.W without model.bag
    const float scale = std::max(1e-3f, r.grad->cwiseAbs().maxCoeff());
    INFO(r.name << ": max |difference| " << (*r.value - *r.grad).cwiseAbs().maxCoeff() << ", largest |gradient| "
                << scale);
    CHECK((*r.value - *r.grad).cwiseAbs().maxCoeff() <= 1e-5f * scale);
  }
}

bool same_bits(HanParams& a, HanParams& b) {
  bool same = true;
  for (ParamRef& r : zip_params(a, b)) same = same && *r.value == *r.grad;
  return same;
}

// Ranks as threads of this process: what one rank sends the other receives, and the
// gathers and broadcasts meet at a barrier. A rank that waits 60 s fails the test
// instead of hanging it.
class ThreadRanks {
 public:
  explicit ThreadRanks(int ranks) : slots_(ranks) {}

  class Rank : public Collective {
   public:
    Rank(ThreadRanks& job, int rank) : job_(job), rank_(rank) {}
    int rank() const override { return rank_; }
    int ranks() const override { return static_cast<int>(job_.slots_.size()); }
    void send(int to, const float* data, std::size_t n) override {
      std::lock_guard<std::mutex> lock(job_.mutex_);
      job_.mail_[{rank_, to}].emplace_back(data, data + n);
      job_.changed_.notify_all();
    }
    void receive(int from, float* data, std::size_t n) override {
      std::unique_lock<std::mutex> lock(job_.mutex_);
      auto& box = job_.mail_[{from, rank_}];
      job_.wait(lock, [&] { return !box.empty(); });
      if (box.front().size() != n) throw std::runtime_error("a message of another size than expected");
      std::copy(box.front().begin(), box.front().end(), data);
      box.erase(box.begin());
    }
    void broadcast(int root, float* data, std::size_t n) override {
      const std::vector<std::vector<float>> all = job_.gather(rank_, std::vector<float>(data, data + n));
      std::copy(all[root].begin(), all[root].end(), data);
    }
    void sum(float* data, std::size_t n) override {
      const std::vector<std::vector<float>> all = job_.gather(rank_, std::vector<float>(data, data + n));
      for (std::size_t i = 0; i < n; ++i) {
        data[i] = 0;
        for (const auto& v : all) data[i] += v[i];
      }
    }
    // A started sum happens at finish_sums, reading its buffer then: a buffer changed or
    // reused before then gives a wrong total.
    void start_sum(float* data, std::size_t n) override { started_.emplace_back(data, n); }
    bool progress() noexcept override { return !started_.empty(); }
    void finish_sums() override {
      for (const auto& [data, n] : started_) sum(data, n);
      started_.clear();
    }
    std::vector<std::int32_t> all_gather(const std::vector<std::int32_t>& mine) override { return concat(mine); }
    std::vector<double> all_gather(const std::vector<double>& mine) override { return concat(mine); }
    std::vector<std::uint64_t> all_gather(std::uint64_t mine) override { return concat(std::vector<std::uint64_t>{mine}); }
    bool any(bool mine) override {
      for (std::int32_t v : concat(std::vector<std::int32_t>{mine}))
        if (v) return true;
      return false;
    }
    [[noreturn]] void abort(int code) override { throw std::runtime_error("rank aborted with " + std::to_string(code)); }

   private:
    template <class T>
    std::vector<T> concat(const std::vector<T>& mine) {
      std::vector<T> out;
      for (const auto& v : job_.gather(rank_, mine)) out.insert(out.end(), v.begin(), v.end());
      return out;
    }
    ThreadRanks& job_;
    int rank_;
    std::vector<std::pair<float*, std::size_t>> started_;
  };

 private:
  template <class Pred>
  void wait(std::unique_lock<std::mutex>& lock, Pred ready) {
    if (!changed_.wait_for(lock, std::chrono::seconds(60), ready)) throw std::runtime_error("a rank waited 60 s");
  }
  // Every rank's values in rank order: each deposits its own, waits for all, reads, and
  // waits again until all have read before the slots can be reused.
  template <class T>
  std::vector<std::vector<T>> gather(int rank, const std::vector<T>& mine) {
    std::unique_lock<std::mutex> lock(mutex_);
    const long long round = round_;
    slots_[rank].assign(reinterpret_cast<const char*>(mine.data()),
                        reinterpret_cast<const char*>(mine.data() + mine.size()));
    if (++arrived_ == static_cast<int>(slots_.size())) {
      arrived_ = 0;
      ++round_;
      changed_.notify_all();
    }
    wait(lock, [&] { return round_ != round; });
    std::vector<std::vector<T>> all;
    for (const std::string& s : slots_) {
      all.emplace_back(s.size() / sizeof(T));
      std::memcpy(all.back().data(), s.data(), s.size());
    }
    if (++read_ == static_cast<int>(slots_.size())) {
      read_ = 0;
      ++read_round_;
      changed_.notify_all();
    }
    const long long reading = round_;
    wait(lock, [&] { return read_round_ == reading; });
    return all;
  }

  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::string> slots_;
  int arrived_ = 0, read_ = 0;
  long long round_ = 0, read_round_ = 0;
  std::map<std::pair<int, int>, std::vector<std::vector<float>>> mail_;
};

// The batch of `f` computed by `ranks` in-process ranks of `threads` workers each, rank r
// on shards_of(r); a rank's failure is rethrown once every rank has ended.
struct RankResults {
  std::vector<GradientWorkers> workers;
  std::vector<double> losses;
};
template <class ShardsOf>
RankResults compute_on_ranks(Fixture& f, int ranks, int threads, AllreduceMode mode, bool overlap,
                             bool train_embeddings, ShardsOf&& shards_of) {
  ThreadRanks job(ranks);
  std::vector<ThreadRanks::Rank> members;
  RankResults out;
  members.reserve(ranks);
  out.workers.reserve(ranks);
  for (int r = 0; r < ranks; ++r) {
    members.emplace_back(job, r);
    out.workers.emplace_back(f.params, threads, mode, overlap);
  }
  out.losses.resize(ranks);
  std::vector<std::exception_ptr> failures(ranks);
  std::vector<std::thread> running;
  for (int r = 0; r < ranks; ++r)
    running.emplace_back([&, r] {
      try {
        out.losses[r] = out.workers[r].compute(f.params, f.cfg, shards_of(r), every_dropout(), f.size(),
                                               train_embeddings, members[r]);
      } catch (...) {
        failures[r] = std::current_exception();
      }
    });
  for (std::thread& t : running) t.join();
  for (const std::exception_ptr& e : failures)
    if (e) std::rethrow_exception(e);
  return out;
}

}  // namespace

TEST_CASE("1, 2 and 4 gradient workers sum to the whole batch's gradient and loss", "[gradient_workers]") {
  Fixture f;
  for (const bool train_embeddings : {true, false}) {
    Gradient want = whole_batch_gradient(f, train_embeddings);
    for (const int threads : {1, 2, 4}) {
      INFO(threads << " threads, embeddings " << (train_embeddings ? "trained" : "frozen"));
      const std::vector<Batch> shards = make_shards(f.docs, f.batch, threads);
      REQUIRE(static_cast<int>(shards.size()) == threads);
      GradientWorkers workers(f.params, threads);
      SingleProcess alone;
      const double loss = workers.compute(f.params, f.cfg, shards, every_dropout(), f.size(), train_embeddings, alone);
      CHECK(loss == Approx(want.loss).epsilon(1e-6));
      check_close(workers.grads(), want.grads);
      CHECK(workers.grads().embedding.table.isZero() != train_embeddings);
    }
  }
}

TEST_CASE("after zero() the workers sum the next batch from nothing", "[gradient_workers]") {
  Fixture f;
  GradientWorkers workers(f.params, 4);
  SingleProcess alone;
  const std::vector<Index> first = f.batch;
  f.batch = {11, 3, 7, 0, 5, 9};  // other documents, other shards, other embedding columns
  Gradient want = whole_batch_gradient(f, true);
  workers.compute(f.params, f.cfg, make_shards(f.docs, first, 4), every_dropout(), static_cast<Index>(first.size()), true,
                  alone);
  workers.zero();
  HanParams empty = zeros_like(f.params);
  CHECK(same_bits(workers.grads(), empty));
  workers.compute(f.params, f.cfg, make_shards(f.docs, f.batch, 4), every_dropout(), f.size(), true, alone);
  check_close(workers.grads(), want.grads);
}

TEST_CASE("ranks summing along their chain give every rank the bits of one process with all their threads, MPI's allreduce the same sum within rounding",
          "[gradient_workers][collective]") {
  Fixture f;
  for (const auto& [mode, overlap] : {std::pair{AllreduceMode::exact, false}, std::pair{AllreduceMode::mpi, false},
                                      std::pair{AllreduceMode::mpi, true}})
  for (const bool train_embeddings : {true, false}) {
    const std::vector<Batch> shards = make_shards(f.docs, f.batch, 4);
    GradientWorkers one_process(f.params, 4);
    SingleProcess alone;
    const double loss = one_process.compute(f.params, f.cfg, shards, every_dropout(), f.size(), train_embeddings, alone);
    for (const auto& [ranks, threads] : {std::pair{2, 2}, std::pair{4, 1}}) {
      INFO(ranks << " ranks of " << threads << " threads, embeddings " << (train_embeddings ? "trained" : "frozen")
                 << ", allreduce " << to_string(mode) << (overlap ? ", overlapped" : ""));
      RankResults job = compute_on_ranks(f, ranks, threads, mode, overlap, train_embeddings, [&](int r) {
        return std::vector<Batch>(shards.begin() + r * threads, shards.begin() + (r + 1) * threads);
      });
      std::vector<GradientWorkers>& workers = job.workers;
      const std::vector<double>& losses = job.losses;
      for (int r = 0; r < ranks; ++r) {
        INFO("rank " << r);
        // Every rank holds the same total; the chain's is one process's, bit for bit.
        CHECK(same_bits(workers[r].grads(), workers[0].grads()));
        if (mode == AllreduceMode::exact) CHECK(same_bits(workers[r].grads(), one_process.grads()));
        else check_close(workers[r].grads(), one_process.grads());
        CHECK(losses[r] == loss);
      }
    }
  }
}

TEST_CASE("ranks that each hold a share of the documents sum to one process's gradient and loss within rounding",
          "[gradient_workers][collective]") {
  Fixture f;
  // The batch in another order than the list: each rank's documents are scattered in it.
  f.batch = {7, 2, 11, 0, 5, 9, 1, 4, 10, 3, 8, 6};
  for (const bool overlap : {false, true})
  for (const bool train_embeddings : {true, false}) {
    GradientWorkers one_process(f.params, 1);
    SingleProcess alone;
    const double loss =
        one_process.compute(f.params, f.cfg, make_shards(f.docs, f.batch, 1), every_dropout(), f.size(), train_embeddings, alone);
    for (const auto& [ranks, threads] : {std::pair{2, 2}, std::pair{3, 1}}) {
      INFO(ranks << " ranks of " << threads << " threads, embeddings " << (train_embeddings ? "trained" : "frozen")
                 << (overlap ? ", overlapped" : ""));
      RankResults job = compute_on_ranks(f, ranks, threads, AllreduceMode::mpi, overlap, train_embeddings, [&](int r) {
        const RankShare share = rank_share(f.docs.size(), r, ranks);
        return make_share_shards(f.docs, f.batch, share.first, share.last, threads);
      });
      std::vector<GradientWorkers>& workers = job.workers;
      const std::vector<double>& losses = job.losses;
      for (int r = 0; r < ranks; ++r) {
        INFO("rank " << r);
        CHECK(same_bits(workers[r].grads(), workers[0].grads()));
        check_close(workers[r].grads(), one_process.grads());
        CHECK(losses[r] == Approx(loss).epsilon(1e-6));  // float shards of other shapes
      }
    }
  }
}
