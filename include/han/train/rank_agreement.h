#pragma once
// Ranks that read different configs, data or han binaries would train apart: each would
// sum gradients of other documents or other shapes and nobody would notice. At start-up
// every rank hashes what it read and the job is refused when any differs from rank 0's.
#include <cstdint>
#include <string>

#include "han/core/config.h"
#include "han/text/corpus.h"
#include "han/train/collective.h"

namespace han {

struct RankInputs {
  std::uint64_t binary = 0;  // the version line: version, commit, build
  std::uint64_t config = 0;  // the effective config as saved
  std::uint64_t data = 0;    // the corpus as read: vocabulary, labels, every document's ids
};

RankInputs hash_rank_inputs(const std::string& version, const Config& cfg, const Corpus& corpus);

// JobWideError (exit 2) naming the first rank whose binary, config or data differs from rank 0's.
void require_same_inputs(Collective& job, const RankInputs& mine);

}  // namespace han
