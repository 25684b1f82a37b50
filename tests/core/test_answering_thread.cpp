// AnsweringThread (han predict's reading/computing overlap): batches are answered once each,
// in order, on the answering thread; the caller goes on while one is answered; an answer's
// error reaches the caller and stops answering; unthreaded, each batch is answered at once.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "han/core/answering_thread.h"

using han::AnsweringThread;

namespace {

// What the answers saw: the batches, in answering order, and the threads they ran on.
struct Log {
  std::mutex mutex;
  std::vector<int> batches;
  std::vector<std::thread::id> threads;
  void add(int batch) {
    const std::lock_guard<std::mutex> lock(mutex);
    batches.push_back(batch);
    threads.push_back(std::this_thread::get_id());
  }
};

// An answer that logs each batch but throws `message` at batch `bad`.
std::function<void(int&)> failing_at(Log& log, int bad, const std::string& message) {
  return [&log, bad, message](int& b) {
    if (b == bad) throw std::runtime_error(message);
    log.add(b);
  };
}

std::vector<int> up_to(int n) {
  std::vector<int> v;
  for (int i = 0; i < n; ++i) v.push_back(i);
  return v;
}

}  // namespace

TEST_CASE("answering thread: every batch once, in order, on its own thread", "[answering_thread]") {
  Log log;
  {
    AnsweringThread<int> answering([&](int& b) { log.add(b); }, true, 2);
    for (int b = 0; b < 200; ++b) answering.submit(b);
    answering.finish();
  }
  CHECK(log.batches == up_to(200));
  for (const std::thread::id id : log.threads) CHECK(id != std::this_thread::get_id());
}

TEST_CASE("answering thread: the caller goes on while a batch is answered", "[answering_thread]") {
  Log log;
  std::atomic<bool> release{false};
  // (at most 10 s: were submit to wait for the answer, the check below fails, not hangs)
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  AnsweringThread<int> answering(
      [&](int& b) {
        while (b == 0 && !release.load() && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
        log.add(b);
      },
      true, 2);
  // Batch 0 is held in its answer; 1 and 2 fit in the two batches ahead, so these calls
  // return although nothing has been answered yet.
  for (int b = 0; b < 3; ++b) answering.submit(b);
  {
    const std::lock_guard<std::mutex> lock(log.mutex);
    CHECK(log.batches.empty());
  }
  release = true;
  answering.finish();
  CHECK(log.batches == up_to(3));
}

TEST_CASE("answering thread: an answer's error reaches the caller, and nothing after it is answered",
          "[answering_thread]") {
  Log log;
  AnsweringThread<int> answering(failing_at(log, 5, "cannot write batch 5"), true, 2);
  std::string error;
  try {
    for (int b = 0; b < 1000; ++b) answering.submit(b);  // stops at a submit once the error is in
    answering.finish();
  } catch (const std::runtime_error& e) {
    error = e.what();
  }
  CHECK(error == "cannot write batch 5");
  CHECK(log.batches == up_to(5));
  CHECK_THROWS_WITH(answering.finish(), "cannot write batch 5");  // and again on every later call
  CHECK_THROWS_WITH(answering.submit(6), "cannot write batch 5");
}

TEST_CASE("answering thread, unthreaded: each batch answered at once on the caller's thread, and an error stays",
          "[answering_thread]") {
  Log log;
  AnsweringThread<int> answering(failing_at(log, 2, "batch 2"), false, 2);
  answering.submit(0);
  CHECK(log.batches == up_to(1));
  answering.submit(1);
  CHECK(log.batches == up_to(2));
  CHECK(log.threads == std::vector<std::thread::id>(2, std::this_thread::get_id()));
  CHECK_THROWS_WITH(answering.submit(2), "batch 2");
  CHECK_THROWS_WITH(answering.submit(3), "batch 2");
  CHECK_THROWS_WITH(answering.finish(), "batch 2");
  CHECK(log.batches == up_to(2));
}
