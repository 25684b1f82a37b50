#include "han/train/optimizer.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "han/core/parallel.h"

namespace han {
namespace {

// A contiguous run of one parameter's elements (column-major flat order).
struct Piece {
  std::size_t param;
  Index begin, size;
};

// Cut at a fixed size, whatever the thread count; a parameter with `columns` is cut into
// those columns only.
std::vector<Piece> pieces_of(const std::vector<ParamRef>& params) {
  constexpr Index kPiece = 1 << 16;
  std::vector<Piece> out;
  for (std::size_t i = 0; i < params.size(); ++i) {
    if (const std::vector<std::int32_t>* columns = params[i].columns) {
      const Index rows = params[i].value->rows();
      for (std::int32_t c : *columns) out.push_back({i, c * rows, rows});
      continue;
    }
    for (Index b = 0; b < params[i].value->size(); b += kPiece)
      out.push_back({i, b, std::min(kPiece, params[i].value->size() - b)});
  }
  return out;
}

// fn(piece index, piece) for every piece; thread t takes pieces t, t + threads, ...
void for_pieces(const std::vector<Piece>& pieces, int threads, const std::function<void(std::size_t, const Piece&)>& fn) {
  const int n = std::max(1, std::min(threads, static_cast<int>(pieces.size())));
  run_parallel(n, [&](int t) {
    for (std::size_t k = static_cast<std::size_t>(t); k < pieces.size(); k += static_cast<std::size_t>(n)) fn(k, pieces[k]);
  });
}

constexpr double kPi = 3.14159265358979323846;

using FlatArray = Eigen::Map<Eigen::Array<Scalar, Eigen::Dynamic, 1>>;

FlatArray flat(Matrix& m, const Piece& p) { return FlatArray(m.data() + p.begin, p.size); }

// Lazily creates one state tensor per parameter, shaped like it.
void ensure_state(std::vector<Matrix>& state, const std::vector<ParamRef>& params) {
  if (state.size() == params.size()) return;
  state.clear();
  for (const ParamRef& p : params) state.push_back(Matrix::Zero(p.value->rows(), p.value->cols()));
}

std::vector<ParamRef> named_state(const std::vector<ParamRef>& params, std::vector<Matrix>& state,
                                  const char* suffix) {
  ensure_state(state, params);
  std::vector<ParamRef> out;
  for (std::size_t i = 0; i < params.size(); ++i)
    out.push_back({params[i].name + suffix, &state[i], nullptr});
  return out;
}

class Sgd : public Optimizer {
 public:
  Sgd(const OptimizerConfig& cfg, int threads) : cfg_(cfg), threads_(threads) {}
  void step(const std::vector<ParamRef>& params, double lr) override {
    ensure_state(velocity_, params);
    const Scalar mu = static_cast<Scalar>(cfg_.momentum), wd = static_cast<Scalar>(cfg_.weight_decay);
    for_pieces(pieces_of(params), threads_, [&](std::size_t, const Piece& p) {
      auto g = flat(*params[p.param].grad, p);
      auto w = flat(*params[p.param].value, p);
      auto v = flat(velocity_[p.param], p);
      if (wd != 0) g += wd * w;
      v = mu * v + g;
      w -= static_cast<Scalar>(lr * params[p.param].lr_scale) * v;
    });
    ++steps_;
  }
  std::vector<ParamRef> state(const std::vector<ParamRef>& params) override {
    return named_state(params, velocity_, ".velocity");
  }
  long long steps() const override { return steps_; }
  void set_steps(long long s) override { steps_ = s; }

 private:
  OptimizerConfig cfg_;
  int threads_;
  std::vector<Matrix> velocity_;
  long long steps_ = 0;
};

// Adam; with `decoupled` (AdamW, Loshchilov & Hutter 2019) weight decay shrinks the
// weights directly, lr * weight_decay * w, outside the adaptive step, and spares biases.
class Adam : public Optimizer {
 public:
  Adam(const OptimizerConfig& cfg, int threads, bool decoupled)
      : cfg_(cfg), threads_(threads), decoupled_(decoupled) {}
  void step(const std::vector<ParamRef>& params, double lr) override {
    ensure_state(m_, params);
    ensure_state(v_, params);
    ++steps_;
    const double b1 = cfg_.beta1, b2 = cfg_.beta2;
    const double bias_correction = 1 - std::pow(b1, steps_);
    const Scalar v_correction = static_cast<Scalar>(1 / std::sqrt(1 - std::pow(b2, steps_)));
    const Scalar eps = static_cast<Scalar>(cfg_.eps), wd = static_cast<Scalar>(cfg_.weight_decay);
    const Scalar fb1 = static_cast<Scalar>(b1), fb2 = static_cast<Scalar>(b2);
    for_pieces(pieces_of(params), threads_, [&](std::size_t, const Piece& p) {
      const double param_lr = lr * params[p.param].lr_scale;
      const Scalar step_size = static_cast<Scalar>(param_lr / bias_correction);
      const Scalar shrink = static_cast<Scalar>(1.0 - param_lr * cfg_.weight_decay);
      auto g = flat(*params[p.param].grad, p);
      auto w = flat(*params[p.param].value, p);
      if (wd != 0 && !decoupled_) g += wd * w;
      if (wd != 0 && decoupled_ && !is_bias(params[p.param].name)) w *= shrink;
      auto m = flat(m_[p.param], p);
      auto v = flat(v_[p.param], p);
      m = fb1 * m + (1 - fb1) * g;
      v = fb2 * v + (1 - fb2) * g.square();
      w -= step_size * m / (v.sqrt() * v_correction + eps);
    });
  }
  std::vector<ParamRef> state(const std::vector<ParamRef>& params) override {
    std::vector<ParamRef> out = named_state(params, m_, ".adam_m");
    for (ParamRef& r : named_state(params, v_, ".adam_v")) out.push_back(r);
    return out;
  }
  long long steps() const override { return steps_; }
  void set_steps(long long s) override { steps_ = s; }

 private:
  OptimizerConfig cfg_;
  int threads_;
  bool decoupled_;
  std::vector<Matrix> m_, v_;
  long long steps_ = 0;
};

}  // namespace

std::unique_ptr<Optimizer> make_optimizer(const OptimizerConfig& cfg, int threads) {
  if (cfg.name == OptimizerName::sgd) return std::make_unique<Sgd>(cfg, threads);
  return std::make_unique<Adam>(cfg, threads, cfg.name == OptimizerName::adamw);
}

double clip_global_norm(const std::vector<ParamRef>& params, double max_norm, int threads) {
  const std::vector<Piece> pieces = pieces_of(params);
  std::vector<double> sums(pieces.size());
  for_pieces(pieces, threads, [&](std::size_t k, const Piece& p) {
    sums[k] = flat(*params[p.param].grad, p).cast<double>().square().sum();
  });
  double sq = 0;
  for (double s : sums) sq += s;
  const double norm = std::sqrt(sq);
  if (max_norm > 0 && std::isfinite(norm) && norm > max_norm) {
    const Scalar scale = static_cast<Scalar>(max_norm / norm);
    for_pieces(pieces, threads, [&](std::size_t, const Piece& p) { flat(*params[p.param].grad, p) *= scale; });
  }
  return norm;
}

double learning_rate(const OptimizerConfig& cfg, long long step, long long total_steps) {
  if (total_steps <= 0) return cfg.lr;
  const double warmup = std::floor(cfg.warmup * static_cast<double>(total_steps));
  const double s = static_cast<double>(step);
  if (s < warmup) return cfg.lr * (s + 1) / warmup;
  // The schedule runs over the steps after the warm-up.
  const double progress = std::min(1.0, (s - warmup) / std::max(1.0, static_cast<double>(total_steps) - warmup));
  switch (cfg.schedule) {
    case LrSchedule::constant:
      return cfg.lr;
    case LrSchedule::linear:
      return cfg.lr * (1.0 - progress);
    case LrSchedule::cosine:
      return cfg.lr * 0.5 * (1.0 + std::cos(kPi * progress));
  }
  return cfg.lr;
}

}  // namespace han
