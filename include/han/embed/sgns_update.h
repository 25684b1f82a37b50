#pragma once
// One step of skip-gram with negative sampling: word2vec's inner loop, the hot path of
// han embed (each call costs about 6 * count * dim flops: a dot product and two axpys per
// target word).
namespace han {

// `input` is the context word's input vector u (dim floats); targets[0] is the observed
// word's output vector, targets[1..count-1] the noise words'. Takes a gradient ascent step
// of size lr on  log σ(u·v_0) + Σ_{j≥1} log σ(−u·v_j),  every gradient at the old values
// (as word2vec: each output vector is updated once visited, u at the end, from the sum
// collected in `scratch`, dim floats). The targets must be distinct vectors, none of them
// `input` or `scratch`.
void sgns_update(float* input, float* const* targets, int count, int dim, float lr, float* scratch);

}  // namespace han
