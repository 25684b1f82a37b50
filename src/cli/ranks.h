#pragma once
// How the ranks of a distributed `han train` (mpirun) report a failure and end, so that
// the job prints one line naming the rank and cause and no rank is left waiting for
// another. With one rank every function behaves as a plain run does.
#include <exception>
#include <optional>
#include <utility>

#include "han/train/collective.h"

namespace han::cli {

// Every verb but train runs as one process: started as several ranks (mpirun) it would do
// its work once per rank over the same files. han::Error naming the verb (argv[1]).
void require_one_rank_unless_train(int argc, char** argv);

// After a start-up phase ran on every rank (`failure`: this rank's, or null): when any
// rank failed, the lowest such rank reports its error ("rank R: ...") and every rank ends
// with that rank's exit code.
void agree_on_start(Collective& job, const std::exception_ptr& failure);

// A failure in training: a JobWideError (every rank meets it alike) is reported by rank 0
// and the others end quietly with its code; any other failure is one rank's own, reported
// with its rank, and ends the whole job at once (the others may be waiting for it).
[[noreturn]] void end_failed_rank(Collective& job, const std::exception_ptr& failure);

// Runs a start-up phase (reading the config, the data) on every rank, then agree_on_start.
template <class F>
auto start_on_every_rank(Collective& job, F&& phase) {
  std::optional<decltype(phase())> result;
  std::exception_ptr failure;
  try {
    result.emplace(phase());
  } catch (...) {
    failure = std::current_exception();
  }
  agree_on_start(job, failure);
  return std::move(*result);
}

// Runs the training phase; a failure ends as end_failed_rank says.
template <class F>
auto train_on_every_rank(Collective& job, F&& phase) {
  try {
    return phase();
  } catch (...) {
    end_failed_rank(job, std::current_exception());
  }
}

}  // namespace han::cli
