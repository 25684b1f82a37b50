#include "han/train/mpi_collective.h"

#include <mpi.h>

#include <climits>

namespace han {
namespace {

// MPI counts are int: a buffer is sent in pieces of at most this many values.
constexpr std::size_t kMaxCount = INT_MAX / 2;

class MpiCollective : public Collective {
 public:
  MpiCollective() {
    int provided = 0;
    // Only the main thread calls MPI; the gradient threads never do.
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks_);
  }
  ~MpiCollective() override { MPI_Finalize(); }
  MpiCollective(const MpiCollective&) = delete;
  MpiCollective& operator=(const MpiCollective&) = delete;

  int rank() const override { return rank_; }
  int ranks() const override { return ranks_; }

  void send(int to, const float* data, std::size_t n) override {
    for (std::size_t at = 0; at < n; at += kMaxCount)
      MPI_Send(data + at, count(n - at), MPI_FLOAT, to, 0, MPI_COMM_WORLD);
  }
  void receive(int from, float* data, std::size_t n) override {
    for (std::size_t at = 0; at < n; at += kMaxCount)
      MPI_Recv(data + at, count(n - at), MPI_FLOAT, from, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  void broadcast(int root, float* data, std::size_t n) override {
    for (std::size_t at = 0; at < n; at += kMaxCount)
      MPI_Bcast(data + at, count(n - at), MPI_FLOAT, root, MPI_COMM_WORLD);
  }
  void sum(float* data, std::size_t n) override {
    for (std::size_t at = 0; at < n; at += kMaxCount)
      MPI_Allreduce(MPI_IN_PLACE, data + at, count(n - at), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  }
  std::vector<std::int32_t> all_gather(const std::vector<std::int32_t>& mine) override {
    return gather_varying(mine, MPI_INT32_T);
  }
  std::vector<double> all_gather(const std::vector<double>& mine) override { return gather_varying(mine, MPI_DOUBLE); }
  std::vector<std::uint64_t> all_gather(std::uint64_t mine) override {
    std::vector<std::uint64_t> all(static_cast<std::size_t>(ranks_));
    MPI_Allgather(&mine, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD);
    return all;
  }
  bool any(bool mine) override {
    int value = mine ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    return value != 0;
  }
  [[noreturn]] void abort(int code) override {
    MPI_Abort(MPI_COMM_WORLD, code);
    std::_Exit(code);  // (MPI_Abort does not return)
  }

 private:
  static int count(std::size_t left) { return static_cast<int>(left < kMaxCount ? left : kMaxCount); }

  template <class T>
  std::vector<T> gather_varying(const std::vector<T>& mine, MPI_Datatype type) {
    const int n = static_cast<int>(mine.size());
    std::vector<int> counts(static_cast<std::size_t>(ranks_)), offsets(static_cast<std::size_t>(ranks_), 0);
    MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
    for (std::size_t r = 1; r < counts.size(); ++r) offsets[r] = offsets[r - 1] + counts[r - 1];
    std::vector<T> all(static_cast<std::size_t>(offsets.back() + counts.back()));
    MPI_Allgatherv(mine.data(), n, type, all.data(), counts.data(), offsets.data(), type, MPI_COMM_WORLD);
    return all;
  }

  int rank_ = 0, ranks_ = 1;
};

}  // namespace

std::unique_ptr<Collective> make_mpi_collective() { return std::make_unique<MpiCollective>(); }

}  // namespace han
