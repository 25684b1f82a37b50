#pragma once
// The ranks of one training job and the few ways they talk. A plain `han train` is one
// rank (every call is then trivial); under mpirun, in a build with HAN_MPI, make_collective()
// returns the MPI implementation (train/mpi_collective, loaded from the module libhan_mpi.so). The trainer only sees this
// interface, never MPI itself.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "han/core/error.h"

namespace han {

class Collective {
 public:
  virtual ~Collective() = default;
  virtual int rank() const = 0;
  virtual int ranks() const = 0;
  // Point to point, for the gradient sum taken in a fixed order: the receiver knows the size.
  virtual void send(int to, const float* data, std::size_t n) = 0;
  virtual void receive(int from, float* data, std::size_t n) = 0;
  // Every rank ends with root's n values.
  virtual void broadcast(int root, float* data, std::size_t n) = 0;
  // Element-wise sum over the ranks, in place on every rank.
  virtual void sum(float* data, std::size_t n) = 0;
  // sum() in three parts, to overlap it with computing. start_sum posts the sum of `data`
  // and returns at once. progress() moves the started sums on (MPI advances nonblocking
  // calls only inside MPI calls), never waits or throws, and says whether any is still
  // under way. finish_sums() waits until every started sum is in place. `data` must stay
  // untouched until then. Every rank starts the same sums in the same order, among its
  // other collective calls.
  virtual void start_sum(float* data, std::size_t n) { sum(data, n); }
  virtual bool progress() noexcept { return false; }
  virtual void finish_sums() {}
  // Every rank's values, concatenated in rank order (the counts may differ between ranks).
  virtual std::vector<std::int32_t> all_gather(const std::vector<std::int32_t>& mine) = 0;
  virtual std::vector<double> all_gather(const std::vector<double>& mine) = 0;
  virtual std::vector<std::uint64_t> all_gather(std::uint64_t mine) = 0;
  // True on every rank when it is true on any (e.g. a stop asked of one rank stops all).
  virtual bool any(bool mine) = 0;
  // Ends every rank of the job with `code`: for a failure one rank meets alone, while the
  // others may be waiting for it.
  [[noreturn]] virtual void abort(int code) = 0;
  // From now on, a rank that waits longer than `seconds` for the others in a call above
  // ends the job with an error naming the ranks that did not arrive (0: no limit).
  virtual void set_timeout(double seconds) { (void)seconds; }
};

// A failure every rank meets alike, at the same point (the same check on the same
// numbers): rank 0 reports it and the others end quietly with its exit code.
class JobWideError : public Error {
 public:
  using Error::Error;
};

// One rank: a process training alone.
class SingleProcess : public Collective {
 public:
  int rank() const override { return 0; }
  int ranks() const override { return 1; }
  void send(int, const float*, std::size_t) override;
  void receive(int, float*, std::size_t) override;
  void broadcast(int, float*, std::size_t) override {}
  void sum(float*, std::size_t) override {}
  std::vector<std::int32_t> all_gather(const std::vector<std::int32_t>& mine) override { return mine; }
  std::vector<double> all_gather(const std::vector<double>& mine) override { return mine; }
  std::vector<std::uint64_t> all_gather(std::uint64_t mine) override { return {mine}; }
  bool any(bool mine) override { return mine; }
  [[noreturn]] void abort(int code) override;
};

// The documents [first, last) of a list of n that `rank` of `ranks` holds when the ranks
// share the data: contiguous blocks whose sizes differ by at most one, so a rank reads one
// stretch of a mapped token cache.
struct RankShare {
  std::int64_t first = 0, last = 0;
};
RankShare rank_share(std::size_t n, int rank, int ranks);

// How many ranks the launcher started (OMPI_COMM_WORLD_SIZE from Open MPI's mpirun, or
// PMI_SIZE from MPICH's mpiexec or srun); 1 when han was not started by one.
int launched_ranks();

// The job this process is part of: MPI's when launched as several ranks, else a single
// process. Several ranks in a build without MPI: han::Error (each would train alone and
// overwrite the others' files); so is an MPI module (libhan_mpi.so) that cannot be loaded
// or belongs to another han version.
std::unique_ptr<Collective> make_collective();

// Whether this han was built with MPI (HAN_MPI): `han --version` says so.
bool built_with_mpi();

}  // namespace han
