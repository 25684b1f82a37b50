// run_parallel and its thread pool: every task runs once, threads are started once and
// reused, tasks really overlap, the lowest-numbered task's exception reaches the caller,
// and nested or concurrent calls are safe (run under TSan/ASan builds too).
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "han/core/parallel.h"

using han::run_parallel;

namespace {

// Waits (at most 10 s) until `count` reaches `target`; false on timeout. Tasks that wait
// for each other can only all get through if they run at the same time.
bool wait_for(std::atomic<int>& count, int target) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (count.load() < target) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::yield();
  }
  return true;
}

}  // namespace

TEST_CASE("run_parallel runs each task exactly once, for any count", "[parallel]") {
  for (int n : {0, 1, 2, 3, 7, 16}) {
    std::vector<int> runs(static_cast<std::size_t>(n), 0);
    run_parallel(n, [&](int k) { ++runs[static_cast<std::size_t>(k)]; });
    CHECK(runs == std::vector<int>(static_cast<std::size_t>(n), 1));
  }
}

TEST_CASE("run_parallel starts its threads once and reuses them", "[parallel]") {
  const std::thread::id caller = std::this_thread::get_id();
  auto thread_ids = [&](int n) {
    std::vector<std::thread::id> ids(static_cast<std::size_t>(n));
    run_parallel(n, [&](int k) { ids[static_cast<std::size_t>(k)] = std::this_thread::get_id(); });
    return ids;
  };
  const std::vector<std::thread::id> first = thread_ids(4);
  CHECK(first[0] == caller);  // the caller takes task 0
  CHECK(std::set<std::thread::id>(first.begin(), first.end()).size() == 4);
  for (int call = 0; call < 50; ++call) REQUIRE(thread_ids(4) == first);
  // A smaller call uses the same first workers; a larger one adds threads, keeping those.
  const std::vector<std::thread::id> two = thread_ids(2);
  CHECK(two[1] == first[1]);
  const std::vector<std::thread::id> six = thread_ids(6);
  CHECK(std::vector<std::thread::id>(six.begin(), six.begin() + 4) == first);
  CHECK(std::set<std::thread::id>(six.begin(), six.end()).size() == 6);
}

TEST_CASE("run_parallel's tasks run at the same time", "[parallel]") {
  for (int call = 0; call < 20; ++call) {
    std::atomic<int> arrived{0};
    std::vector<int> met(3, 0);
    run_parallel(3, [&](int k) {
      ++arrived;
      met[static_cast<std::size_t>(k)] = wait_for(arrived, 3);
    });
    REQUIRE(met == std::vector<int>{1, 1, 1});
  }
}

TEST_CASE("run_parallel rethrows the lowest-numbered task's exception after all tasks ran", "[parallel]") {
  std::atomic<int> finished{0};
  auto throwing = [&](int k) {
    if (k == 2 || k == 3) throw std::runtime_error("task " + std::to_string(k));
    ++finished;
  };
  REQUIRE_THROWS_WITH(run_parallel(5, throwing), "task 2");
  CHECK(finished == 3);
  // Task 0 (the caller's own) is reported like any other.
  REQUIRE_THROWS_WITH(run_parallel(2, [](int k) { throw std::runtime_error("t" + std::to_string(k)); }), "t0");
  // The pool still works after a failed call.
  std::atomic<int> sum{0};
  run_parallel(4, [&](int k) { sum += k; });
  CHECK(sum == 6);
}

TEST_CASE("run_parallel from inside a task runs the inner tasks on that thread", "[parallel]") {
  std::vector<int> out(12, 0);
  std::vector<std::thread::id> outer(3), inner(12);
  run_parallel(3, [&](int k) {
    outer[static_cast<std::size_t>(k)] = std::this_thread::get_id();
    run_parallel(4, [&](int j) {
      const auto i = static_cast<std::size_t>(4 * k + j);
      out[i] = 4 * k + j + 1;
      inner[i] = std::this_thread::get_id();
    });
  });
  for (int i = 0; i < 12; ++i) {
    CHECK(out[static_cast<std::size_t>(i)] == i + 1);
    CHECK(inner[static_cast<std::size_t>(i)] == outer[static_cast<std::size_t>(i / 4)]);
  }
  // An inner exception reaches the outer caller through both calls.
  REQUIRE_THROWS_WITH(run_parallel(2, [](int k) {
                        run_parallel(2, [k](int j) {
                          if (k == 1 && j == 1) throw std::runtime_error("inner");
                        });
                      }),
                      "inner");
}

TEST_CASE("run_parallel called from several threads at once gives every caller its results", "[parallel]") {
  constexpr int kCallers = 4, kCalls = 200, kTasks = 3;
  std::vector<long> totals(kCallers, 0);
  std::vector<std::thread> callers;
  for (int c = 0; c < kCallers; ++c) {
    callers.emplace_back([&, c] {
      for (int call = 0; call < kCalls; ++call) {
        std::vector<long> parts(kTasks, 0);
        run_parallel(kTasks, [&](int k) { parts[static_cast<std::size_t>(k)] = 1000L * c + k; });
        for (long p : parts) totals[static_cast<std::size_t>(c)] += p;
      }
    });
  }
  for (std::thread& t : callers) t.join();
  for (int c = 0; c < kCallers; ++c) CHECK(totals[static_cast<std::size_t>(c)] == kCalls * (3000L * c + 3));
}

TEST_CASE("run_parallel_polling runs every task on the pool while the caller polls, until all are done",
          "[parallel]") {
  const std::thread::id caller = std::this_thread::get_id();
  for (int n : {1, 2, 3}) {
    std::vector<std::thread::id> ran(static_cast<std::size_t>(n));
    std::atomic<bool> release{false};
    std::atomic<int> finished{0};
    int polls = 0;
    han::run_parallel_polling(
        n,
        [&](int k) {
          ran[static_cast<std::size_t>(k)] = std::this_thread::get_id();
          const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
          while (!release.load() && std::chrono::steady_clock::now() < give_up)
            std::this_thread::yield();  // held until the caller has polled
          if (release.load()) ++finished;
        },
        [&] {
          CHECK(std::this_thread::get_id() == caller);
          if (++polls == 3) release = true;
          return true;
        });
    CHECK(finished == n);  // returns only after every task
    CHECK(polls >= 3);
    for (const std::thread::id& id : ran) CHECK(id != caller);
    CHECK(std::set<std::thread::id>(ran.begin(), ran.end()).size() == static_cast<std::size_t>(n));
  }
  REQUIRE_THROWS_WITH(han::run_parallel_polling(
                          2, [](int k) { throw std::runtime_error("t" + std::to_string(k)); }, [] { return true; }),
                      "t0");
}

TEST_CASE("run_parallel_polling stops polling when poll says nothing is left, and still waits for every task",
          "[parallel]") {
  std::atomic<bool> release{false};
  std::atomic<int> finished{0};
  int polls = 0;
  std::thread releaser([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // 500 poll intervals
    release = true;
  });
  han::run_parallel_polling(
      2,
      [&](int) {
        const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (!release.load() && std::chrono::steady_clock::now() < give_up) std::this_thread::yield();
        if (release.load()) ++finished;
      },
      [&] { return ++polls < 2; });
  releaser.join();
  CHECK(finished == 2);
  CHECK(polls == 2);
}

TEST_CASE("run_parallel_polling inside a task runs the tasks in turn, then polls once", "[parallel]") {
  std::vector<int> out(3, 0);
  int polls = 0;
  run_parallel(2, [&](int k) {
    if (k != 0) return;
    han::run_parallel_polling(3, [&](int j) { out[static_cast<std::size_t>(j)] = j + 1; }, [&] { return ++polls > 0; });
  });
  CHECK(out == std::vector<int>{1, 2, 3});
  CHECK(polls == 1);
}
