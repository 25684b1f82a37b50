#pragma once
// The optimizer's only view of a model: a flat list of named (value, grad) pairs.
// Each layer's parameter struct lists its tensors once in a static `fields`
// template; HanParams composes them with dotted name prefixes.
#include <cstdint>
#include <string>
#include <vector>

#include "han/core/types.h"

namespace han {

struct ParamRef {
  std::string name;
  Matrix* value;
  Matrix* grad;
  double lr_scale = 1.0;  // this tensor's learning rate, as a multiple of the optimizer's
  // The only columns whose gradient can be non-zero, sorted (nullptr: any): the optimizer
  // then visits those alone.
  const std::vector<std::int32_t>* columns = nullptr;
};

// Whether a tensor is a bias (its name's last part is "b" or starts with "b_"): AdamW's
// decay leaves biases alone, as shrinking an offset toward 0 regularises nothing.
inline bool is_bias(const std::string& name) {
  const std::string last = name.substr(name.rfind('.') + 1);
  return last == "b" || last.rfind("b_", 0) == 0;
}

// Pairs the tensors of `values` and `grads` (two instances of one params type) by name.
template <class P>
std::vector<ParamRef> zip_params(P& values, P& grads) {
  std::vector<ParamRef> refs;
  P::fields(values, [&](const std::string& name, Matrix& m) { refs.push_back({name, &m, nullptr}); });
  std::size_t i = 0;
  P::fields(grads, [&](const std::string&, Matrix& m) { refs[i++].grad = &m; });
  return refs;
}

// A zero tensor of the same shape for every tensor of `values`.
template <class P>
P zeros_like(const P& values) {
  P out = values;
  P::fields(out, [](const std::string&, Matrix& m) { m.setZero(); });
  return out;
}

template <class P>
Index parameter_count(const P& p) {
  Index n = 0;
  P::fields(p, [&](const std::string&, const Matrix& m) { n += m.size(); });
  return n;
}

}  // namespace han
