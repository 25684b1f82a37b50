#pragma once
// A gradient as one flat buffer, the form ranks exchange: every tensor but the embedding
// table in HanParams::fields order, then the embedding table's columns for `ids` (the
// words of the batch, sorted and distinct; pass none when the embeddings are frozen).
// Only those columns of the table can be non-zero, so they are all that is sent.
#include <cstdint>
#include <vector>

#include "han/nn/model.h"

namespace han {

std::size_t gradient_buffer_size(const HanParams& grads, std::size_t ids);

void pack_gradient(const HanParams& grads, const std::vector<std::int32_t>& ids, std::vector<Scalar>& out);

enum class Unpack { add, assign };
// grads += buffer (add) or grads = buffer (assign), over the tensors and columns packed.
void unpack_gradient(const std::vector<Scalar>& in, const std::vector<std::int32_t>& ids, Unpack how,
                     HanParams& grads);

}  // namespace han
