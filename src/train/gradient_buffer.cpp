#include "han/train/gradient_buffer.h"

#include <optional>
#include <string>

#include "han/core/error.h"

namespace han {
namespace {

// Calls f(block, offset) for every packed block of `grads` (a dense tensor, or one
// embedding column) in the stage's part, with the block's offset in the buffer.
template <class Params, class F>
void for_packed_blocks(Params& grads, const std::vector<std::int32_t>& ids, std::optional<BackwardStage> stage,
                       F&& f) {
  std::size_t at = 0;
  Params::fields(grads, [&](const std::string& name, auto& m) {
    if (!whole_in_gradient_part(name, stage)) return;
    f(m.reshaped(), at);
    at += static_cast<std::size_t>(m.size());
  });
  if (!in_gradient_part(kEmbeddingTable, stage)) return;
  for (std::int32_t id : ids) {
    f(grads.embedding.table.col(id), at);
    at += static_cast<std::size_t>(grads.embedding.table.rows());
  }
}

}  // namespace

bool in_gradient_part(const std::string& tensor, std::optional<BackwardStage> stage) {
  return !stage || backward_stage_of(tensor) == *stage;
}

bool whole_in_gradient_part(const std::string& tensor, std::optional<BackwardStage> stage) {
  return tensor != kEmbeddingTable && in_gradient_part(tensor, stage);
}

std::size_t gradient_buffer_size(const HanParams& grads, std::size_t ids, std::optional<BackwardStage> stage) {
  std::size_t n = 0;
  HanParams::fields(grads, [&](const std::string& name, const Matrix& m) {
    if (whole_in_gradient_part(name, stage)) n += static_cast<std::size_t>(m.size());
  });
  return in_gradient_part(kEmbeddingTable, stage) ? n + ids * static_cast<std::size_t>(grads.embedding.table.rows()) : n;
}

void pack_gradient(const HanParams& grads, const std::vector<std::int32_t>& ids, std::vector<Scalar>& out,
                   std::optional<BackwardStage> stage) {
  out.resize(gradient_buffer_size(grads, ids.size(), stage));
  for_packed_blocks(grads, ids, stage, [&](const auto& block, std::size_t at) {
    Eigen::Map<Vector>(out.data() + at, block.size()) = block;
  });
}

void unpack_gradient(const std::vector<Scalar>& in, const std::vector<std::int32_t>& ids, Unpack how,
                     HanParams& grads, std::optional<BackwardStage> stage) {
  HAN_ASSERT(in.size() == gradient_buffer_size(grads, ids.size(), stage));
  for_packed_blocks(grads, ids, stage, [&](auto&& block, std::size_t at) {
    const Eigen::Map<const Vector> from(in.data() + at, block.size());
    if (how == Unpack::add)
      block += from;
    else
      block = from;
  });
}

}  // namespace han
