#include "han/train/linear_member_training.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <chrono>
#include <vector>

#include "han/core/parallel.h"
#include "han/core/random.h"
#include "han/nn/parameters.h"
#include "han/text/batch.h"
#include "han/train/linear_member_exact.h"
#include "han/train/optimizer.h"

namespace han {
namespace {

using Indices = std::vector<Index>;

// `order` cut into consecutive batches of `size` documents (the last may be shorter).
std::vector<Indices> cut_into_batches(const Indices& order, Index size) {
  std::vector<Indices> batches;
  for (std::size_t first = 0; first < order.size(); first += static_cast<std::size_t>(size))
    batches.emplace_back(order.begin() + static_cast<std::ptrdiff_t>(first),
                         order.begin() + static_cast<std::ptrdiff_t>(
                                             std::min(order.size(), first + static_cast<std::size_t>(size))));
  return batches;
}

// docs[indices]'s summed loss (each document times its weight); with grads, their gradient
// times `scale` is added. The features are computed batch by batch, every epoch, rather than
// once for the corpus: held at once, they would cost 8 bytes per distinct word of every
// document (over a gigabyte for a million reviews, about what the HAN's whole training takes).
double linear_member_loss(const LinearMemberParams& p, const OutputHead& head, const LossConfig& loss,
                          const Documents& docs, const Indices& indices, double scale, LinearMemberParams* grads) {
  const BagFeatures x = linear_member_features(p, docs, indices);
  const Matrix logits = linear_member_logits(p, x);
  Matrix d_logits;
  const double sum = head_loss(head, loss, logits, answers_batch(docs, indices), scale, d_logits);
  if (grads) linear_member_backward(x, d_logits, *grads);
  return sum;
}

// The mean dev loss, in batches of `batch_size`. Regression scores dev by squared error
// (on standardised targets, as the HAN's dev loss is), whatever loss.regression trains.
double dev_loss(const LinearMemberParams& p, const OutputHead& head, const LossConfig& loss, const Documents& dev,
                Index batch_size) {
  LossConfig scoring = loss;
  scoring.regression = RegressionLoss::mse;
  double sum = 0;
  for (const Indices& batch : cut_into_batches(every_document(dev), batch_size))
    sum += linear_member_loss(p, head, scoring, dev, batch, 0.0, nullptr);
  return sum / static_cast<double>(dev.size());
}

// The training documents' batches for one epoch, in a seeded order.
std::vector<Indices> epoch_batches(const Documents& train, Index batch_size, std::uint64_t seed, int epoch) {
  Indices order = every_document(train);
  Rng rng(derive_seed(seed, SeedStream::linear_member, static_cast<std::uint64_t>(epoch)));
  rng.shuffle(order);
  return cut_into_batches(order, batch_size);
}

// SGD from `p` (see linear_member_training.h).
LinearMemberResult train_by_sgd(const Config& cfg, const Corpus& corpus, const OutputHead& head, LinearMemberParams p) {
  const Index batch_size = std::max(1, cfg.batching.batch_size);
  LinearMemberParams grads = zeros_like(p);
  std::vector<ParamRef> refs = zip_params(p, grads);
  refs.erase(std::remove_if(refs.begin(), refs.end(), [](const ParamRef& r) { return fixed_linear_member_tensor(r.name); }),
             refs.end());
  for (ParamRef& r : refs) r.lr_scale = cfg.optimizer.bag_lr_scale;
  const std::unique_ptr<Optimizer> optimizer = make_optimizer(cfg.optimizer, resolve_threads(cfg.trainer.threads));
  const long long documents = static_cast<long long>(corpus.train.size());
  const long long steps_per_epoch = (documents + batch_size - 1) / batch_size;
  const long long total_steps = steps_per_epoch * kLinearMemberEpochs;

  LinearMemberResult r;
  r.solver = LinearSolver::sgd;
  r.params = p;
  double best = std::numeric_limits<double>::infinity();
  for (int epoch = 1; epoch <= kLinearMemberEpochs; ++epoch) {
    for (const Indices& batch : epoch_batches(corpus.train, batch_size, cfg.trainer.seed, epoch)) {
      for (ParamRef& ref : refs) ref.grad->setZero();
      linear_member_loss(p, head, cfg.loss, corpus.train, batch, 1.0 / static_cast<double>(batch.size()), &grads);
      clip_global_norm(refs, cfg.optimizer.clip_norm);
      optimizer->step(refs, learning_rate(cfg.optimizer, optimizer->steps(), total_steps));
    }
    r.epochs = epoch;
    if (corpus.dev.empty()) {
      r.params = p;
      r.best_epoch = epoch;
      continue;
    }
    const double loss = dev_loss(p, head, cfg.loss, corpus.dev, batch_size);
    if (loss < best) {
      best = loss;
      r.params = p;
      r.best_epoch = epoch;
      r.dev_loss = loss;
    } else if (cfg.trainer.patience > 0 && epoch - r.best_epoch >= cfg.trainer.patience) {
      break;
    }
  }
  return r;
}

}  // namespace

nlohmann::json LinearMemberResult::to_json() const {
  nlohmann::json j{{"solver", solver == LinearSolver::liblinear ? "liblinear" : "sgd"}};
  if (solver == LinearSolver::liblinear) {
    j["C"] = c;
  } else {
    j["best_epoch"] = best_epoch;
    j["epochs"] = epochs;
  }
  j["pairs"] = params.pairs.cols();
  j["char_grams"] = params.gram_count();
  j["dev_loss"] = std::isfinite(dev_loss) ? nlohmann::json(dev_loss) : nlohmann::json();
  j["weight"] = weight == kAutoReal ? nlohmann::json() : nlohmann::json(weight);
  return j;
}

nlohmann::json LinearMemberResult::summary_json() const {
  nlohmann::json j = to_json();
  j["seconds"] = seconds;
  return j;
}

void log_linear_member(const LinearMemberResult& r) {
  std::string pairs = r.params.pairs.cols() ? fmt::format(", {} word pairs", r.params.pairs.cols()) : "";
  if (r.params.gram_count()) pairs += fmt::format(", {} character n-grams", r.params.gram_count());
  if (r.solver == LinearSolver::liblinear) {
    spdlog::info("linear member: {} words{}, fitted by LIBLINEAR at C {}{}, {:.1f}s", r.params.words(), pairs, r.c,
                 std::isfinite(r.dev_loss) ? fmt::format("{}, dev loss {:.4f}", r.c_on_dev ? " (chosen on dev)" : "", r.dev_loss) : "",
                 r.seconds);
    return;
  }
  if (std::isfinite(r.dev_loss))
    spdlog::info("linear member: best epoch {} of {}, dev loss {:.4f}, {:.1f}s", r.best_epoch, r.epochs, r.dev_loss,
                 r.seconds);
  else
    spdlog::info("linear member: {} epochs (no dev set), {:.1f}s", r.epochs, r.seconds);
}

Matrix linear_member_answers(const LinearMemberParams& p, const OutputHead& head, const Documents& docs, int threads) {
  constexpr Index kChunk = 1024;  // documents whose features are held at once
  Matrix answers(p.b.rows(), static_cast<Index>(docs.size()));
  for (const Indices& chunk : cut_into_batches(every_document(docs), kChunk))
    answers.middleCols(chunk.front(), static_cast<Index>(chunk.size())) =
        head_answers(head, linear_member_logits(p, linear_member_features(p, docs, chunk, threads)));
  return answers;
}

Config without_linear_member(Config cfg) {
  cfg.model.linear_member = false;
  return cfg;
}

namespace {

// Where SGD starts for a member continued from `from`: its pairs, n-grams, weights and
// idf, with zeros and this data's idf for the words appended to the vocabulary since.
LinearMemberParams continued_member(const LinearMemberParams& from, const Documents& train, const Vocab& vocab,
                                    LinearText text) {
  const Index vocab_size = static_cast<Index>(vocab.size());
  LinearMemberParams p = linear_member_init(train, vocab_size, from.W.rows(), from.pairs, text,
                                            char_grams_of_words(vocab, from.grams.bucket_matrix()));
  const Index old_words = from.words(), tail = from.pair_count() + from.gram_count();
  HAN_ASSERT(old_words <= vocab_size);
  p.W.leftCols(old_words) = from.W.leftCols(old_words);
  p.W.rightCols(tail) = from.W.rightCols(tail);
  p.idf.topRows(old_words) = from.idf.topRows(old_words);
  p.idf.bottomRows(tail) = from.idf.bottomRows(tail);
  p.b = from.b;
  return p;
}

bool equal_weights(const Documents& docs) {
  const std::vector<float>& w = docs.answers().weights;
  return std::all_of(w.begin(), w.end(), [&](float x) { return x == w.front(); });
}

// A member fitted over the words, their pairs and `grams`; by LIBLINEAR from `start`, or by
// SGD from zeros.
LinearMemberResult fitted_member(const Config& cfg, const Corpus& corpus, const OutputHead& head, const Matrix& pairs,
                                 CharGrams grams, const LinearStart& start = {}) {
  const Index outputs = head_outputs(head.task, corpus.labels.size());
  const Index words = static_cast<Index>(corpus.vocab.size());
  const int threads = resolve_threads(cfg.trainer.threads);
  if (equal_weights(corpus.train))
    return fit_linear_member(cfg, corpus, head,
                             linear_member_init_with_features(corpus.train, words, outputs, pairs, cfg.model.linear_text,
                                                              std::move(grams), threads),
                             start);
  spdlog::info("linear member: the training documents weigh differently, which LIBLINEAR cannot weigh: SGD fits it");
  LinearMemberParams p = linear_member_init(corpus.train, words, outputs, pairs, cfg.model.linear_text, std::move(grams), threads);
  if (head.task == Task::multilabel) start_at_label_rates(p.b, label_rates(corpus));
  return train_by_sgd(cfg, corpus, head, std::move(p));
}

// A start for the member with `grams` n-grams from the one without them at its C: its
// weights, and zeros for the n-grams (columns between the pairs and the bias). The words'
// features are the same in both, as the n-grams are scaled to unit length apart.
LinearStart with_room_for_grams(const LinearMemberResult& without, Index grams) {
  LinearStart start{without.c, without.solutions};
  for (std::vector<double>& w : start.solutions)
    if (!w.empty()) w.insert(w.end() - 1, static_cast<std::size_t>(grams), 0.0);
  return start;
}

// model.linear_chars: auto fits the member without character n-grams, then with them from
// where the first fit ended (its C and weights), and keeps the one of lower dev loss (with
// them, without a dev set). Only when they win at that C does the search for theirs go on:
// where the words say enough (IMDB), that saves a third of the member's time.
LinearMemberResult fresh_linear_member(const Config& cfg, const Corpus& corpus, const OutputHead& head) {
  const Index outputs = head_outputs(head.task, corpus.labels.size());
  const Matrix pairs = linear_member_pairs(corpus.train, outputs, cfg.model.linear_ngrams, cfg.model.linear_text);
  const Switch chars = cfg.model.linear_chars;
  auto grams = [&](bool on) {
    return linear_member_grams(corpus.train, corpus.vocab, outputs, pairs.cols(), on, cfg.model.linear_text);
  };
  if (chars != Switch::auto_ || corpus.dev.empty())
    return fitted_member(cfg, corpus, head, pairs, grams(chars != Switch::off));
  LinearMemberResult without = fitted_member(cfg, corpus, head, pairs, grams(false));
  CharGrams kept = grams(true);
  LinearStart start = with_room_for_grams(without, kept.count());
  start.beat = without.dev_loss;
  LinearMemberResult with = fitted_member(cfg, corpus, head, pairs, std::move(kept), start);
  const bool keep = with.params.gram_count() > 0 && with.dev_loss < without.dev_loss;
  spdlog::info("linear member: character n-grams {} (linear_chars auto: dev loss {:.4f} with {} of them, {:.4f} without)",
               keep ? "kept" : "left out", with.dev_loss, with.params.gram_count(), without.dev_loss);
  return keep ? std::move(with) : std::move(without);
}

}  // namespace

LinearMemberResult train_linear_member(const Config& cfg, const Corpus& corpus, const OutputHead& head,
                                       const LinearMemberParams* from) {
  const auto start = std::chrono::steady_clock::now();
  LinearMemberResult r;
  if (from) {
    r = train_by_sgd(cfg, corpus, head, continued_member(*from, corpus.train, corpus.vocab, cfg.model.linear_text));
  } else {
    r = fresh_linear_member(cfg, corpus, head);
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace han
