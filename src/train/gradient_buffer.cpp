#include "han/train/gradient_buffer.h"

#include <string>

#include "han/core/error.h"

namespace han {
namespace {

const char* const kEmbedding = "embedding.table";

// Calls f(block, offset) for every packed block of `grads` (a dense tensor, or one
// embedding column), with the block's offset in the buffer.
template <class Params, class F>
void for_packed_blocks(Params& grads, const std::vector<std::int32_t>& ids, F&& f) {
  std::size_t at = 0;
  Params::fields(grads, [&](const std::string& name, auto& m) {
    if (name == kEmbedding) return;
    f(m.reshaped(), at);
    at += static_cast<std::size_t>(m.size());
  });
  for (std::int32_t id : ids) {
    f(grads.embedding.table.col(id), at);
    at += static_cast<std::size_t>(grads.embedding.table.rows());
  }
}

}  // namespace

std::size_t gradient_buffer_size(const HanParams& grads, std::size_t ids) {
  std::size_t n = 0;
  HanParams::fields(grads, [&](const std::string& name, const Matrix& m) {
    if (name != kEmbedding) n += static_cast<std::size_t>(m.size());
  });
  return n + ids * static_cast<std::size_t>(grads.embedding.table.rows());
}

void pack_gradient(const HanParams& grads, const std::vector<std::int32_t>& ids, std::vector<Scalar>& out) {
  out.resize(gradient_buffer_size(grads, ids.size()));
  for_packed_blocks(grads, ids, [&](const auto& block, std::size_t at) {
    Eigen::Map<Vector>(out.data() + at, block.size()) = block;
  });
}

void unpack_gradient(const std::vector<Scalar>& in, const std::vector<std::int32_t>& ids, Unpack how,
                     HanParams& grads) {
  HAN_ASSERT(in.size() == gradient_buffer_size(grads, ids.size()));
  for_packed_blocks(grads, ids, [&](auto&& block, std::size_t at) {
    const Eigen::Map<const Vector> from(in.data() + at, block.size());
    if (how == Unpack::add)
      block += from;
    else
      block = from;
  });
}

}  // namespace han
