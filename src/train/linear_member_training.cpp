#include "han/train/linear_member_training.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <chrono>
#include <numeric>
#include <vector>

#include "han/core/parallel.h"
#include "han/core/random.h"
#include "han/nn/parameters.h"
#include "han/text/batch.h"
#include "han/train/optimizer.h"

namespace han {
namespace {

using Indices = std::vector<Index>;

// 0, 1, ..., n - 1.
Indices in_order(std::size_t n) {
  Indices order(n);
  std::iota(order.begin(), order.end(), Index{0});
  return order;
}

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
  for (const Indices& batch : cut_into_batches(in_order(dev.size()), batch_size))
    sum += linear_member_loss(p, head, scoring, dev, batch, 0.0, nullptr);
  return sum / static_cast<double>(dev.size());
}

// The training documents' batches for one epoch, in a seeded order.
std::vector<Indices> epoch_batches(std::size_t documents, Index batch_size, std::uint64_t seed, int epoch) {
  Indices order = in_order(documents);
  Rng rng(derive_seed(seed, SeedStream::linear_member, static_cast<std::uint64_t>(epoch)));
  rng.shuffle(order);
  return cut_into_batches(order, batch_size);
}

}  // namespace

nlohmann::json LinearMemberResult::to_json() const {
  return {{"best_epoch", best_epoch},
          {"epochs", epochs},
          {"dev_loss", std::isfinite(dev_loss) ? nlohmann::json(dev_loss) : nlohmann::json()},
          {"weight", weight == kAutoReal ? nlohmann::json() : nlohmann::json(weight)}};
}

nlohmann::json LinearMemberResult::summary_json() const {
  nlohmann::json j = to_json();
  j["seconds"] = seconds;
  return j;
}

void log_linear_member(const LinearMemberResult& r) {
  if (std::isfinite(r.dev_loss))
    spdlog::info("linear member: best epoch {} of {}, dev loss {:.4f}, {:.1f}s", r.best_epoch, r.epochs, r.dev_loss,
                 r.seconds);
  else
    spdlog::info("linear member: {} epochs (no dev set), {:.1f}s", r.epochs, r.seconds);
}

Matrix linear_member_answers(const LinearMemberParams& p, const OutputHead& head, const Documents& docs) {
  constexpr Index kChunk = 1024;  // documents whose features are held at once
  Matrix answers(p.b.rows(), static_cast<Index>(docs.size()));
  for (const Indices& chunk : cut_into_batches(in_order(docs.size()), kChunk))
    answers.middleCols(chunk.front(), static_cast<Index>(chunk.size())) =
        head_answers(head, linear_member_logits(p, linear_member_features(p, docs, chunk)));
  return answers;
}

Config without_linear_member(Config cfg) {
  cfg.model.linear_member = false;
  return cfg;
}

LinearMemberResult train_linear_member(const Config& cfg, const Corpus& corpus, const OutputHead& head,
                                       const LinearMemberParams* from) {
  const auto start = std::chrono::steady_clock::now();
  const Index batch_size = std::max(1, cfg.batching.batch_size);
  LinearMemberParams p = linear_member_init(corpus.train, static_cast<Index>(corpus.vocab.size()),
                                            head_outputs(cfg.model.task, corpus.labels.size()));
  if (cfg.model.task == Task::multilabel) start_at_label_rates(p.b, label_rates(corpus));
  if (from) {
    HAN_ASSERT(from->W.rows() == p.W.rows() && from->W.cols() <= p.W.cols());
    p.W.leftCols(from->W.cols()) = from->W;
    p.b = from->b;
    p.idf.topRows(from->idf.rows()) = from->idf;
  }
  LinearMemberParams grads = zeros_like(p);
  std::vector<ParamRef> refs = zip_params(p, grads);
  refs.erase(std::remove_if(refs.begin(), refs.end(), [](const ParamRef& r) { return r.name == "idf"; }), refs.end());
  for (ParamRef& r : refs) r.lr_scale = cfg.optimizer.bag_lr_scale;
  const std::unique_ptr<Optimizer> optimizer = make_optimizer(cfg.optimizer, resolve_threads(cfg.trainer.threads));
  const long long documents = static_cast<long long>(corpus.train.size());
  const long long steps_per_epoch = (documents + batch_size - 1) / batch_size;
  const long long total_steps = steps_per_epoch * kLinearMemberEpochs;

  LinearMemberResult r;
  r.params = p;
  double best = std::numeric_limits<double>::infinity();
  for (int epoch = 1; epoch <= kLinearMemberEpochs; ++epoch) {
    for (const Indices& batch : epoch_batches(corpus.train.size(), batch_size, cfg.trainer.seed, epoch)) {
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
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace han
