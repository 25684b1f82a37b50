#pragma once
// A gradient as one flat buffer, the form ranks exchange: every tensor but the embedding
// table in HanParams::fields order, then the embedding table's columns for `ids` (the
// words of the batch, sorted and distinct; pass none when the embeddings are frozen).
// Only those columns of the table can be non-zero, so they are all that is sent.
// With a stage, the buffer holds only the tensors whose gradient that backward stage
// finishes (nn/model.h: backward_stage_of), in the same order.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "han/nn/model.h"

namespace han {

// Whether the tensor belongs to the stage's part (every tensor does without a stage).
bool in_gradient_part(const std::string& tensor, std::optional<BackwardStage> stage);
// A tensor of the part that goes whole: every one but the embedding table (nn/model.h),
// which goes column by column.
bool whole_in_gradient_part(const std::string& tensor, std::optional<BackwardStage> stage);

std::size_t gradient_buffer_size(const HanParams& grads, std::size_t ids,
                                 std::optional<BackwardStage> stage = std::nullopt);

void pack_gradient(const HanParams& grads, const std::vector<std::int32_t>& ids, std::vector<Scalar>& out,
                   std::optional<BackwardStage> stage = std::nullopt);

enum class Unpack { add, assign };
// grads += buffer (add) or grads = buffer (assign), over the tensors and columns packed.
void unpack_gradient(const std::vector<Scalar>& in, const std::vector<std::int32_t>& ids, Unpack how,
                     HanParams& grads, std::optional<BackwardStage> stage = std::nullopt);

}  // namespace han
