#include "han/train/mpi_collective.h"

#include <mpi.h>

#include <chrono>
#include <climits>
#include <cstdio>
#include <deque>
#include <string>
#include <thread>

namespace han {
namespace {

// MPI counts are int: a buffer is sent in pieces of at most this many values.
constexpr std::size_t kMaxCount = INT_MAX / 2;
// The tag of the messages by which ranks tell rank 0 they reached a collective call.
constexpr int kArrivalTag = 7;
// How much longer than rank 0 the other ranks wait: rank 0 names the missing ranks first.
constexpr double kGraceSeconds = 15;
// A waiting rank tells rank 0 it is alive this often; at its deadline rank 0 listens this
// long, and names the ranks it did not hear from.
constexpr auto kHeartbeat = std::chrono::milliseconds(500);
constexpr auto kListen = std::chrono::seconds(2);

using Clock = std::chrono::steady_clock;

// Every call waits on nonblocking MPI requests with a deadline (set_timeout), so that a
// rank that hangs or is stopped ends the job instead of holding the others for ever. To
// name that rank, every other rank tells rank 0 when it reaches each collective call, and
// every 0.5 s while it waits (a few bytes, sent without waiting): at its deadline rank 0
// listens 2 s more and names the ranks it has not heard from. Only the main thread calls
// MPI.
class MpiCollective : public Collective {
 public:
  MpiCollective() {
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks_);
    arrived_.assign(static_cast<std::size_t>(ranks_), 0);
    heard_.assign(static_cast<std::size_t>(ranks_), Clock::time_point{});
  }
  ~MpiCollective() override {
    if (!started_.empty()) abort(1);  // (MPI_Finalize must not run with sums in flight; the trainer finishes them)
    settle_arrivals();
    MPI_Finalize();
  }
  MpiCollective(const MpiCollective&) = delete;
  MpiCollective& operator=(const MpiCollective&) = delete;

  int rank() const override { return rank_; }
  int ranks() const override { return ranks_; }
  void set_timeout(double seconds) override { timeout_ = seconds; }

  void send(int to, const float* data, std::size_t n) override {
    for (std::size_t at = 0; at < n; at += kMaxCount) {
      MPI_Request r;
      MPI_Isend(data + at, count(n - at), MPI_FLOAT, to, 0, MPI_COMM_WORLD, &r);
      wait_for_peer(r, to);
    }
  }
  void receive(int from, float* data, std::size_t n) override {
    for (std::size_t at = 0; at < n; at += kMaxCount) {
      MPI_Request r;
      MPI_Irecv(data + at, count(n - at), MPI_FLOAT, from, 0, MPI_COMM_WORLD, &r);
      wait_for_peer(r, from);
    }
  }
  void broadcast(int root, float* data, std::size_t n) override {
    for (std::size_t at = 0; at < n; at += kMaxCount)
      collective([&](MPI_Request* r) { MPI_Ibcast(data + at, count(n - at), MPI_FLOAT, root, MPI_COMM_WORLD, r); });
  }
  void sum(float* data, std::size_t n) override {
    start_sum(data, n);
    finish_sums();
  }
  void start_sum(float* data, std::size_t n) override {
    ++calls_;
    announce_arrival();
    for (std::size_t at = 0; at < n; at += kMaxCount) {
      started_.push_back(MPI_REQUEST_NULL);
      MPI_Iallreduce(MPI_IN_PLACE, data + at, count(n - at), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &started_.back());
    }
  }
  bool progress() noexcept override {
    bool under_way = false;
    for (MPI_Request& r : started_) {
      int done = 1;
      if (r != MPI_REQUEST_NULL) MPI_Test(&r, &done, MPI_STATUS_IGNORE);  // (a finished request becomes NULL)
      under_way = under_way || !done;
    }
    if (rank_ == 0) hear_arrivals();
    return under_way;
  }
  void finish_sums() override {
    const Clock::time_point until = deadline(rank_ == 0 ? 0 : kGraceSeconds);  // one wait for them all
    for (MPI_Request& r : started_)
      if (!wait_until(r, until)) timed_out();
    started_.clear();
  }
  std::vector<std::int32_t> all_gather(const std::vector<std::int32_t>& mine) override {
    return gather_varying(mine, MPI_INT32_T);
  }
  std::vector<double> all_gather(const std::vector<double>& mine) override { return gather_varying(mine, MPI_DOUBLE); }
  std::vector<std::uint64_t> all_gather(std::uint64_t mine) override {
    std::vector<std::uint64_t> all(static_cast<std::size_t>(ranks_));
    collective([&](MPI_Request* r) {
      MPI_Iallgather(&mine, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD, r);
    });
    return all;
  }
  bool any(bool mine) override {
    int value = mine ? 1 : 0;
    collective([&](MPI_Request* r) { MPI_Iallreduce(MPI_IN_PLACE, &value, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD, r); });
    return value != 0;
  }
  [[noreturn]] void abort(int code) override {
    MPI_Abort(MPI_COMM_WORLD, code);
    std::_Exit(code);  // (MPI_Abort does not return)
  }

 private:
  struct Arrival {
    long long call;
    MPI_Request request;
  };

  static int count(std::size_t left) { return static_cast<int>(left < kMaxCount ? left : kMaxCount); }

  template <class T>
  std::vector<T> gather_varying(const std::vector<T>& mine, MPI_Datatype type) {
    const int n = static_cast<int>(mine.size());
    std::vector<int> counts(static_cast<std::size_t>(ranks_)), offsets(static_cast<std::size_t>(ranks_), 0);
    collective([&](MPI_Request* r) { MPI_Iallgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD, r); });
    for (std::size_t r = 1; r < counts.size(); ++r) offsets[r] = offsets[r - 1] + counts[r - 1];
    std::vector<T> all(static_cast<std::size_t>(offsets.back() + counts.back()));
    collective([&](MPI_Request* r) {
      MPI_Iallgatherv(mine.data(), n, type, all.data(), counts.data(), offsets.data(), type, MPI_COMM_WORLD, r);
    });
    return all;
  }

  // One collective call: every rank makes the same calls in the same order, so their
  // numbers agree. `start` posts the nonblocking call.
  template <class Start>
  void collective(Start&& start) {
    ++calls_;
    announce_arrival();
    MPI_Request r;
    start(&r);
    const bool done = wait_until(r, deadline(rank_ == 0 ? 0 : kGraceSeconds));
    if (!done) timed_out();
  }

  Clock::time_point deadline(double grace) const {
    if (timeout_ <= 0) return Clock::time_point::max();
    return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_ + grace));
  }

  // Waits for `r`, spinning briefly, then sleeping between tests so that a waiting rank
  // leaves the cores to the ranks still computing. False at the deadline.
  bool wait_until(MPI_Request& r, Clock::time_point until) {
    const auto start = Clock::now();
    int done = 0;
    while (true) {
      MPI_Test(&r, &done, MPI_STATUS_IGNORE);
      if (done) return true;
      const auto now = Clock::now();
      if (rank_ == 0) hear_arrivals();
      else if (timeout_ > 0 && now - last_told_ > kHeartbeat) announce_arrival();
      if (now >= until) return false;
      if (now - start > std::chrono::microseconds(200)) std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }

  void wait_for_peer(MPI_Request& r, int peer) {
    if (wait_until(r, deadline(0))) return;
    fail("waited " + seconds_text() + " for rank " + std::to_string(peer) +
         " in the gradient chain (trainer.allreduce exact): it is hung, stopped or far slower");
  }

  void announce_arrival() {
    if (timeout_ <= 0 || rank_ == 0) return;
    last_told_ = Clock::now();
    pending_.push_back({calls_, MPI_REQUEST_NULL});
    MPI_Isend(&pending_.back().call, 1, MPI_LONG_LONG, 0, kArrivalTag, MPI_COMM_WORLD, &pending_.back().request);
    int done = 1;
    while (!pending_.empty() && (MPI_Test(&pending_.front().request, &done, MPI_STATUS_IGNORE), done))
      pending_.pop_front();
  }

  // Rank 0: takes in every arrival message sent so far.
  void hear_arrivals() {
    int waiting = 1;
    MPI_Status status;
    while (MPI_Iprobe(MPI_ANY_SOURCE, kArrivalTag, MPI_COMM_WORLD, &waiting, &status), waiting) {
      long long call = 0;
      MPI_Recv(&call, 1, MPI_LONG_LONG, status.MPI_SOURCE, kArrivalTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      arrived_[static_cast<std::size_t>(status.MPI_SOURCE)] = call;
      heard_[static_cast<std::size_t>(status.MPI_SOURCE)] = Clock::now();
    }
  }

  [[noreturn]] void timed_out() {
    if (rank_ != 0)
      fail("waited " + seconds_text() + " for the other ranks; rank 0, which names the ranks that do not arrive, did "
           "not end the job: it may be hung or stopped itself");
    // A rank waiting in this call says so every kHeartbeat: listen for them.
    const auto listened = Clock::now();
    while (Clock::now() - listened < kListen) {
      hear_arrivals();
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    std::string missing;
    for (int r = 1; r < ranks_; ++r)
      if (arrived_[static_cast<std::size_t>(r)] < calls_ || heard_[static_cast<std::size_t>(r)] < listened)
        missing += (missing.empty() ? "" : ", ") + std::to_string(r);
    fail(missing.empty() ? "every rank is waiting, but the exchange did not complete within " + seconds_text()
                         : "rank " + missing + " did not answer within " + seconds_text() +
                               " (hung, stopped, or far slower than the others)");
  }

  [[noreturn]] void fail(const std::string& what) {
    std::fprintf(stderr, "han: error: rank %d: %s; ending the job (trainer.rank_timeout)\n", rank_, what.c_str());
    std::fflush(stderr);
    abort(1);
  }

  std::string seconds_text() const { return std::to_string(static_cast<long long>(timeout_)) + " s"; }

  // Before MPI_Finalize: rank 0 takes in the arrivals still on their way; the others see
  // theirs delivered. Bounded: a job ended early may not have sent them all.
  void settle_arrivals() {
    if (timeout_ <= 0) return;
    const auto until = Clock::now() + std::chrono::seconds(5);
    auto all_heard = [&] {
      for (int r = 1; r < ranks_; ++r)
        if (arrived_[static_cast<std::size_t>(r)] < calls_) return false;
      return true;
    };
    if (rank_ == 0)
      while (!all_heard() && Clock::now() < until) {
        hear_arrivals();
        std::this_thread::sleep_for(std::chrono::microseconds(100));
      }
    for (Arrival& a : pending_)
      if (!wait_until(a.request, until)) MPI_Request_free(&a.request);
  }

  int rank_ = 0, ranks_ = 1;
  double timeout_ = 0;
  long long calls_ = 0;             // collective calls made so far
  std::vector<long long> arrived_;  // rank 0: the last call each rank said it reached
  std::vector<Clock::time_point> heard_;  // rank 0: when each rank last said so
  Clock::time_point last_told_;     // when this rank last told rank 0
  std::deque<Arrival> pending_;     // this rank's arrival messages not yet delivered
  std::vector<MPI_Request> started_;  // the sums start_sum posted, until finish_sums
};

}  // namespace

}  // namespace han

// The module's entries (libhan_mpi.so; train/collective.cpp loads it).
extern "C" const char* han_mpi_module_version() { return HAN_VERSION; }
extern "C" han::Collective* han_make_mpi_collective() { return new han::MpiCollective(); }
