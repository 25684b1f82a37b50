#include "han/infer/bag_words.h"

#include <algorithm>
#include <optional>

#include "han/text/vocab.h"

namespace han {
namespace {

// The `n` features with the largest lean (a row of the weights shown, centred), named by `name`.
template <class Name>
std::vector<std::pair<std::string, double>> strongest(const Vector& lean, const Name& name, std::size_t n) {
  std::vector<Index> ids;
  for (Index id = 0; id < lean.size(); ++id)
    if (id != Vocab::kPad && id != Vocab::kUnk && lean(id) > 0) ids.push_back(id);
  n = std::min(n, ids.size());
  std::partial_sort(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(n), ids.end(),
                    [&](Index a, Index b) { return lean(a) > lean(b) || (lean(a) == lean(b) && a < b); });
  std::vector<std::pair<std::string, double>> out;
  for (std::size_t k = 0; k < n; ++k) out.emplace_back(name(ids[k]), lean(ids[k]));
  return out;
}

// The weights shown: the linear member's, each word's times its idf (what one occurrence
// weighs before the normalisation); else the bag term's, the members' mean.
Matrix bag_weights(const Classifier& c) {
  if (const LinearMemberParams* linear = c.linear_member()) return read_view(linear->W, linear->W_stored) * linear->idf_values().col(0).asDiagonal();
  Matrix mean = Matrix::Zero(c.params.bag.W.rows(), c.params.bag.W.cols());
  for (const HanParams* m : c.members()) mean += m->bag.W;
  return mean / static_cast<Scalar>(c.members().size());
}

}  // namespace

std::vector<BagLeaning> bag_top_words(const Classifier& c, std::size_t per_answer) {
  if (c.config.model.bag != Bag::words && !c.linear_member()) return {};
  const Matrix mean = bag_weights(c);
  const LinearMemberParams* linear = c.linear_member();
  std::optional<LinearFeatureNamer> member_name;
  if (linear) member_name.emplace(*linear, c.vocab);
  const auto name = [&](Index id) -> std::string {
    return member_name ? (*member_name)(id) : std::string(c.vocab.word(static_cast<std::int32_t>(id)));
  };
  if (c.head.task == Task::regression) {
    const Vector up = mean.row(0).transpose();
    return {{"higher", strongest(up, name, per_answer)}, {"lower", strongest(-up, name, per_answer)}};
  }
  const Vector centre = mean.colwise().mean().transpose();
  std::vector<BagLeaning> out;
  for (Index label = 0; label < mean.rows(); ++label)
    out.push_back({c.labels[static_cast<std::size_t>(label)],
                   strongest(mean.row(label).transpose() - centre, name, per_answer)});
  return out;
}

}  // namespace han
