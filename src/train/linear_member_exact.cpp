#include "han/train/linear_member_exact.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <utility>

#include "han/core/parallel.h"
#include "han/infer/calibration.h"
#include "han/infer/temperature.h"
#include "han/train/linear_solver.h"

namespace han {
namespace {

// The problems of `task`: one target vector each (±1 for logistic loss).
struct MemberProblems {
  LinearLoss loss = LinearLoss::logistic;
  std::vector<std::vector<double>> y;
};

MemberProblems member_problems(const OutputHead& head, const Documents& train, Index outputs) {
  MemberProblems m;
  const std::size_t n = train.size();
  const Answers& a = train.answers();
  if (head.task == Task::regression) {
    m.loss = LinearLoss::least_squares;
    m.y.emplace_back(n);
    for (std::size_t i = 0; i < n; ++i) m.y[0][i] = head.scale.standardise(a.targets[i]);
    return m;
  }
  const Index problems = head.task == Task::single && outputs == 2 ? 1 : outputs;
  m.y.assign(static_cast<std::size_t>(problems), std::vector<double>(n, -1.0));
  for (std::size_t i = 0; i < n; ++i) {
    if (head.task == Task::single) {
      const std::int32_t label = a.labels[i];
      if (problems == 1 && label == 1) m.y[0][i] = 1;
      if (problems > 1) m.y[static_cast<std::size_t>(label)][i] = 1;
    } else {
      for (std::uint64_t k = a.label_set_starts[i]; k < a.label_set_starts[i + 1]; ++k)
        m.y[static_cast<std::size_t>(a.label_set_ids[k])][i] = 1;
    }
  }
  return m;
}

// A problem whose documents all answer alike has no boundary to fit: no weights, and the
// bias at the log-odds of its (clamped) rate.
bool one_sided(const std::vector<double>& y, std::vector<double>& w, Index features) {
  const auto positives = std::count(y.begin(), y.end(), 1.0);
  if (positives != 0 && positives != static_cast<std::ptrdiff_t>(y.size())) return false;
  const double rate = std::clamp(static_cast<double>(positives) / static_cast<double>(y.size()), 1e-4, 1 - 1e-4);
  w.assign(static_cast<std::size_t>(features) + 1, 0.0);
  w.back() = std::log(rate / (1 - rate));
  return true;
}

// Fits every problem at C, on `threads` threads, each from its solution in `w` (if any).
void fit_all(const LinearRows& rows, const MemberProblems& m, double C, int threads,
             std::vector<std::vector<double>>& w) {
  w.resize(m.y.size());
  std::atomic<std::size_t> next{0};
  run_parallel(threads, [&](int) {
    for (std::size_t k; (k = next++) < m.y.size();) {
      if (m.loss == LinearLoss::logistic && one_sided(m.y[k], w[k], rows.features())) continue;
      w[k] = fit_linear(rows, m.y[k], m.loss, C, w[k]);
    }
  });
}

// The solutions as the member's weights: a row per output (for two labels, ±w/2, so that
// the softmax of the two rows is the sigmoid of w·x).
void set_weights(LinearMemberParams& p, const std::vector<std::vector<double>>& w) {
  const Index features = p.W.cols();
  const bool halves = w.size() == 1 && p.W.rows() == 2;
  for (Index r = 0; r < p.W.rows(); ++r) {
    const std::vector<double>& s = w[halves ? 0 : static_cast<std::size_t>(r)];
    const double sign = halves ? (r == 1 ? 0.5 : -0.5) : 1.0;
    for (Index f = 0; f < features; ++f) p.W(r, f) = static_cast<Scalar>(sign * s[static_cast<std::size_t>(f)]);
    p.b(r, 0) = static_cast<Scalar>(sign * s.back());
  }
}

// The dev loss of a member whose dev logits are `logits`; for classification, at the
// temperature that minimises it.
struct DevLoss {
  double loss = std::numeric_limits<double>::quiet_NaN();
  double temperature = 1;
};

DevLoss tempered_dev_loss(const Matrix& logits, const OutputHead& head, const Documents& dev) {
  if (head.task == Task::regression) {
    double sum = 0;
    for (std::size_t i = 0; i < dev.size(); ++i) {
      const double e = logits(0, static_cast<Index>(i)) - head.scale.standardise(dev.answers().targets[i]);
      sum += e * e;
    }
    return {sum / static_cast<double>(dev.size()), 1};
  }
  const LabelSets gold = gold_label_sets(head.task, dev);
  const double T = fit_temperature(head.task, logits, gold);
  return {tempered_nll(head.task, logits, gold, T), T};
}

// The member fitted at one C: its solutions and their dev loss.
struct Trial {
  double c = 0;
  DevLoss dev;
  LinearSolutions solutions;
};

class CSearch {
 public:
  CSearch(const Config& cfg, const Corpus& corpus, const OutputHead& head, LinearMemberInit member)
      : corpus_(corpus), head_(head), member_(std::move(member.params)),
        problems_(member_problems(head, corpus.train, member_.W.rows())),
        threads_(resolve_threads(cfg.trainer.threads)),
        rows_(std::exchange(member.train_features, {}), member_.W.cols()),
        dev_features_(linear_member_features(member_, corpus.dev, every_document(corpus.dev), threads_)) {}

  // Fitted at C, each problem's solver from `solutions`.
  Trial fit(double C, LinearSolutions solutions) {
    const auto start = std::chrono::steady_clock::now();
    fit_all(rows_, problems_, C, threads_, solutions);
    Trial t{C, {}, std::move(solutions)};
    if (corpus_.dev.empty()) return t;
    set_weights(member_, t.solutions);
    t.dev = tempered_dev_loss(linear_member_logits(member_, dev_features_), head_, corpus_.dev);
    spdlog::debug("linear member: C {} dev loss {:.4f} ({:.1f}s)", C, t.dev.loss,
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    return t;
  }

  // From `best` by factors of `step` while a step lowers the dev loss; true if one did.
  bool walk(Trial& best, double step) {
    bool moved = false;
    for (double C = best.c * step; C >= kMinLinearC && C <= kMaxLinearC; C *= step) {
      Trial t = fit(C, best.solutions);
      if (!(t.dev.loss < best.dev.loss)) break;
      best = std::move(t);
      moved = true;
    }
    return moved;
  }

  // The member with `trial`'s weights, its temperature folded in (its probabilities are
  // calibrated before they are averaged in).
  LinearMemberParams member(const Trial& trial) {
    set_weights(member_, trial.solutions);
    if (trial.dev.temperature != 1) {
      member_.W /= static_cast<Scalar>(trial.dev.temperature);
      member_.b /= static_cast<Scalar>(trial.dev.temperature);
    }
    return std::move(member_);
  }

 private:
  const Corpus& corpus_;
  const OutputHead& head_;
  LinearMemberParams member_;  // each trial's weights in turn
  MemberProblems problems_;
  int threads_;
  LinearRows rows_;
  BagFeatures dev_features_;
};

}  // namespace

LinearMemberResult fit_linear_member(const Config& cfg, const Corpus& corpus, const OutputHead& head,
                                     LinearMemberInit member, const LinearStart& start) {
  CSearch search(cfg, corpus, head, std::move(member));
  const bool on_dev = cfg.model.linear_c == kAutoReal && !corpus.dev.empty();
  const double first = !on_dev ? (cfg.model.linear_c != kAutoReal ? cfg.model.linear_c : kLinearCWithoutDev)
                       : start.c > 0 ? std::clamp(start.c, kMinLinearC, kMaxLinearC)
                                     : kMinLinearC;
  Trial best = search.fit(first, start.solutions);
  const bool walk = on_dev && best.dev.loss < start.beat;
  if (walk && !search.walk(best, kLinearCStep)) search.walk(best, 1 / kLinearCStep);
  LinearMemberResult r;
  r.solver = LinearSolver::liblinear;
  r.c_on_dev = on_dev;
  r.c = best.c;
  r.dev_loss = best.dev.loss;
  r.params = search.member(best);
  r.solutions = std::move(best.solutions);
  return r;
}

}  // namespace han
