#include "ranks.h"

#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>

#include "commands.h"

namespace han::cli {
namespace {

struct Failure {
  int code;
  std::string message;
};

Failure describe(const std::exception_ptr& failure) {
  try {
    std::rethrow_exception(failure);
  } catch (const Error& e) {
    return {e.exit_code(), e.what()};
  } catch (const CommandExit& e) {
    return {e.code, ""};
  } catch (const std::bad_alloc&) {
    return {1, "out of memory"};
  } catch (const std::exception& e) {
    return {1, e.what()};
  }
}

// `reporter` prints its line, and only then does any rank end (every rank calls this):
// mpirun stops the job as soon as one rank exits non-zero, and a line a rank has not yet
// written by then is lost.
[[noreturn]] void report_then_end(Collective& job, int reporter, const std::string& line, int code) {
  if (job.rank() == reporter && !line.empty()) {
    std::fflush(stdout);
    std::fprintf(stderr, "han: error: %s\n", line.c_str());
    std::fflush(stderr);
  }
  job.all_gather(std::uint64_t{0});
  throw CommandExit{code};
}

}  // namespace

void require_one_rank_unless_train(int argc, char** argv) {
  const int ranks = launched_ranks();
  if (argc < 2 || ranks <= 1 || std::string(argv[1]) == "train") return;
  throw Error("han " + std::string(argv[1]) + " runs as one process, not as " + std::to_string(ranks) +
              " ranks of mpirun (only han train is distributed; see docs/recipes.md for sharding "
              "predict)");
}

void agree_on_start(Collective& job, const std::exception_ptr& failure) {
  if (job.ranks() == 1) {
    if (failure) std::rethrow_exception(failure);
    return;
  }
  const Failure mine = failure ? describe(failure) : Failure{0, ""};
  const std::vector<std::uint64_t> codes = job.all_gather(static_cast<std::uint64_t>(mine.code));
  for (std::size_t r = 0; r < codes.size(); ++r) {
    if (codes[r] == 0) continue;
    const std::string line = mine.message.empty() ? "" : "rank " + std::to_string(r) + ": " + mine.message;
    report_then_end(job, static_cast<int>(r), line, static_cast<int>(codes[r]));
  }
}

void end_failed_rank(Collective& job, const std::exception_ptr& failure) {
  if (job.ranks() == 1) std::rethrow_exception(failure);
  try {
    std::rethrow_exception(failure);
  } catch (const JobWideError& e) {
    report_then_end(job, 0, e.what(), e.exit_code());
  } catch (const CommandExit&) {
    throw;
  } catch (...) {
    const Failure f = describe(failure);
    std::fprintf(stderr, "han: error: rank %d: %s\n", job.rank(), f.message.c_str());
    std::fflush(stderr);
    job.abort(f.code);
  }
  std::_Exit(1);  // (not reached: every branch above throws or aborts the job)
}

}  // namespace han::cli
