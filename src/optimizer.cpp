#include "han/optimizer.h"

#include <cmath>

namespace han {
namespace {

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
  explicit Sgd(const OptimizerConfig& cfg) : cfg_(cfg) {}
  void step(const std::vector<ParamRef>& params, double lr) override {
    ensure_state(velocity_, params);
    const Scalar mu = static_cast<Scalar>(cfg_.momentum), wd = static_cast<Scalar>(cfg_.weight_decay);
    for (std::size_t i = 0; i < params.size(); ++i) {
      Matrix& v = velocity_[i];
      if (wd != 0) *params[i].grad += wd * *params[i].value;
      v = mu * v + *params[i].grad;
      *params[i].value -= static_cast<Scalar>(lr) * v;
    }
    ++steps_;
  }
  std::vector<ParamRef> state(const std::vector<ParamRef>& params) override {
    return named_state(params, velocity_, ".velocity");
  }
  long long steps() const override { return steps_; }
  void set_steps(long long s) override { steps_ = s; }

 private:
  OptimizerConfig cfg_;
  std::vector<Matrix> velocity_;
  long long steps_ = 0;
};

class Adam : public Optimizer {
 public:
  explicit Adam(const OptimizerConfig& cfg) : cfg_(cfg) {}
  void step(const std::vector<ParamRef>& params, double lr) override {
    ensure_state(m_, params);
    ensure_state(v_, params);
    ++steps_;
    const double b1 = cfg_.beta1, b2 = cfg_.beta2;
    const Scalar step_size = static_cast<Scalar>(lr / (1 - std::pow(b1, steps_)));
    const Scalar v_correction = static_cast<Scalar>(1 / std::sqrt(1 - std::pow(b2, steps_)));
    const Scalar eps = static_cast<Scalar>(cfg_.eps), wd = static_cast<Scalar>(cfg_.weight_decay);
    const Scalar fb1 = static_cast<Scalar>(b1), fb2 = static_cast<Scalar>(b2);
    for (std::size_t i = 0; i < params.size(); ++i) {
      auto g = params[i].grad->array();
      auto w = params[i].value->array();
      if (wd != 0) g += wd * w;
      auto m = m_[i].array();
      auto v = v_[i].array();
      m = fb1 * m + (1 - fb1) * g;
      v = fb2 * v + (1 - fb2) * g.square();
      w -= step_size * m / (v.sqrt() * v_correction + eps);
    }
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
  std::vector<Matrix> m_, v_;
  long long steps_ = 0;
};

}  // namespace

std::unique_ptr<Optimizer> make_optimizer(const OptimizerConfig& cfg) {
  if (cfg.name == OptimizerName::sgd) return std::make_unique<Sgd>(cfg);
  return std::make_unique<Adam>(cfg);
}

double clip_global_norm(const std::vector<ParamRef>& params, double max_norm) {
  double sq = 0;
  for (const ParamRef& p : params) sq += p.grad->cast<double>().squaredNorm();
  const double norm = std::sqrt(sq);
  if (max_norm > 0 && std::isfinite(norm) && norm > max_norm) {
    const Scalar scale = static_cast<Scalar>(max_norm / norm);
    for (const ParamRef& p : params) *p.grad *= scale;
  }
  return norm;
}

double learning_rate(const OptimizerConfig& cfg, long long step, long long total_steps) {
  if (cfg.schedule == LrSchedule::constant || total_steps <= 0) return cfg.lr;
  const double progress = std::min(1.0, static_cast<double>(step) / static_cast<double>(total_steps));
  return cfg.lr * (1.0 - progress);
}

}  // namespace han
