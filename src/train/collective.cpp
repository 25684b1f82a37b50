#include "han/train/collective.h"

#include <cstdlib>
#include <string>

#ifdef HAN_MPI
#include "han/core/modules.h"
#include "han/train/mpi_collective.h"
#endif

namespace han {

void SingleProcess::send(int, const float*, std::size_t) { HAN_ASSERT(!"a single process has no rank to send to"); }

void SingleProcess::receive(int, float*, std::size_t) {
  HAN_ASSERT(!"a single process has no rank to receive from");
}

void SingleProcess::abort(int code) { std::_Exit(code); }

RankShare rank_share(std::size_t n, int rank, int ranks) {
  const auto at = [&](int r) { return static_cast<std::int64_t>(n * static_cast<std::size_t>(r) / static_cast<std::size_t>(ranks)); };
  return {at(rank), at(rank + 1)};
}

int launched_ranks() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}) {
    const char* value = std::getenv(name);
    if (value && std::atoi(value) > 0) return std::atoi(value);
  }
  return 1;
}

std::unique_ptr<Collective> make_collective() {
  const int ranks = launched_ranks();
  if (ranks <= 1) return std::make_unique<SingleProcess>();
#ifdef HAN_MPI
  void* module = load_module("mpi");
  const auto version = reinterpret_cast<decltype(&han_mpi_module_version)>(
      module_function(module, "mpi", "han_mpi_module_version"));
  if (std::string(version()) != HAN_VERSION)
    throw Error("han's mpi module libhan_mpi.so is from han " + std::string(version()) + ", this han is " +
                HAN_VERSION + ": reinstall han");
  const auto make = reinterpret_cast<decltype(&han_make_mpi_collective)>(
      module_function(module, "mpi", "han_make_mpi_collective"));
  return std::unique_ptr<Collective>(make());
#else
  throw Error("started as " + std::to_string(ranks) +
              " ranks (mpirun), but this han was built without MPI (HAN_MPI=OFF): rebuild it with "
              "libopenmpi-dev installed, or run one han train");
#endif
}

bool built_with_mpi() {
#ifdef HAN_MPI
  return true;
#else
  return false;
#endif
}

}  // namespace han
