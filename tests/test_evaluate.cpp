// Scoring (infer/evaluation): the one way training, the ablation, `han train` and
// `han eval` turn predictions into metrics, and the batches held-out data is scored in.
#include <catch2/catch.hpp>

#include "han/core/random.h"

using namespace han;

TEST_CASE("seed streams keep their numbers: they are part of every trained model", "[evaluate][seed]") {
  CHECK(static_cast<std::uint64_t>(SeedStream::init) == 1);
  CHECK(static_cast<std::uint64_t>(SeedStream::batches) == 2);
  CHECK(static_cast<std::uint64_t>(SeedStream::dropout) == 3);
  CHECK(static_cast<std::uint64_t>(SeedStream::dev_batches) == 4);
  CHECK(derive_seed(9, SeedStream::dropout, 17) == derive_seed(9, 3, 17));
  CHECK(derive_seed(9, SeedStream::init) != derive_seed(9, SeedStream::batches));
}
