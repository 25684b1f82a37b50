// The batcher of han serve with a real model (the CLI tests' shared one): jobs handed in
// from many threads at once, one larger than a pass, jobs of two models mixed, and a
// stop, each answered as the predictor answers the documents alone.
#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "han/serve/batcher.h"
#include "han/text/encoding.h"
#include "support/cli_fixture.h"

using namespace han;
using han::serve::Batcher;
using han::serve::Job;
using han::serve::ServedModel;

namespace {

const std::vector<std::string> kTexts = {
    "A fine film. I loved every minute.", "Dull and far too long.", "Great acting, a weak plot.",
    "The worst film of the year.",        "Moving and funny.",      "I walked out after an hour. Awful."};

Job job_of(const std::shared_ptr<const ServedModel>& model, const std::vector<std::string>& texts) {
  Job job;
  job.model = model;
  for (const std::string& t : texts) job.docs.push_back(encode_words(model->tokenizer.tokenize(t), model->classifier.vocab));
  return job;
}

// The model's probabilities for one text predicted alone.
Matrix alone(const ServedModel& model, const std::string& text) {
  Documents docs(model.classifier.vocab.size());
  docs.push_back(encode_words(model.tokenizer.tokenize(text), model.classifier.vocab));
  return model.predictor.predict(docs, 1);
}

bool near(const Matrix& a, const Matrix& b) { return a.rows() == b.rows() && (a - b).cwiseAbs().maxCoeff() < 1e-5; }

// Hands the job in as a request thread does.
void answer(Batcher& batcher, Job& job) {
  batcher.arriving();
  batcher.answer(job);
}

}  // namespace

TEST_CASE("serve batcher: jobs from many threads, one larger than a pass, are answered as alone", "[cli][serve]") {
  const std::shared_ptr<const ServedModel> model = ServedModel::load(han::test::cli_fixture().model, 0);
  std::mutex passes_mutex;
  std::vector<std::size_t> passes;
  serve::BatcherOptions options;
  options.max_batch = 4;
  Batcher batcher(options, [&](std::size_t docs, double) {
    std::lock_guard<std::mutex> lock(passes_mutex);
    passes.push_back(docs);
  });
  std::vector<Job> jobs;
  jobs.push_back(job_of(model, {kTexts.begin(), kTexts.end()}));  // 6 documents: two passes at least
  for (const std::string& t : kTexts) jobs.push_back(job_of(model, {t}));
  std::vector<std::thread> threads;
  for (Job& job : jobs) threads.emplace_back([&] { answer(batcher, job); });
  for (std::thread& t : threads) t.join();
  for (std::size_t i = 0; i < kTexts.size(); ++i) {
    INFO(kTexts[i]);
    const Matrix expected = alone(*model, kTexts[i]);
    CHECK(near(jobs[0].probs.col(static_cast<Index>(i)), expected));
    CHECK(near(jobs[i + 1].probs, expected));
  }
  std::size_t answered = 0;
  for (std::size_t n : passes) {
    CHECK(n <= 4);
    answered += n;
  }
  CHECK(answered == 12);
}

TEST_CASE("serve batcher: a pass holds the documents of one model, and after stop a job is refused", "[cli][serve]") {
  // Two models loaded from one file, as before and after a reload: their answers agree,
  // so only the passes' sizes tell whether a pass mixed them.
  const std::shared_ptr<const ServedModel> before = ServedModel::load(han::test::cli_fixture().model, 0);
  const std::shared_ptr<const ServedModel> after = ServedModel::load(han::test::cli_fixture().model, 0);
  std::mutex passes_mutex;
  std::vector<std::size_t> passes;
  serve::BatcherOptions options;
  options.max_wait = std::chrono::seconds(5);  // the pass waits for every request read
  Batcher batcher(options, [&](std::size_t docs, double) {
    std::lock_guard<std::mutex> lock(passes_mutex);
    passes.push_back(docs);
  });
  std::vector<Job> jobs;
  for (std::size_t i = 0; i < kTexts.size(); ++i) jobs.push_back(job_of(i % 2 ? after : before, {kTexts[i]}));
  // All six are read before any is queued: the first pass starts with all six waiting.
  for (std::size_t i = 0; i < jobs.size(); ++i) batcher.arriving();
  std::vector<std::thread> threads;
  for (Job& job : jobs) threads.emplace_back([&] { batcher.answer(job); });
  for (std::thread& t : threads) t.join();
  CHECK(passes == std::vector<std::size_t>{3, 3});  // one of six would have mixed the models
  for (std::size_t i = 0; i < kTexts.size(); ++i) CHECK(near(jobs[i].probs, alone(*jobs[i].model, kTexts[i])));
  batcher.stop();
  Job late = job_of(before, {kTexts[0]});
  batcher.arriving();
  CHECK_THROWS_WITH(batcher.answer(late), Catch::Contains("stopping"));
}

TEST_CASE("serve batcher: once four requests were in at once, two waiting start a pass without max_wait", "[cli][serve]") {
  const std::shared_ptr<const ServedModel> model = ServedModel::load(han::test::cli_fixture().model, 0);
  std::mutex passes_mutex;
  std::vector<std::size_t> passes;
  serve::BatcherOptions options;
  options.max_wait = std::chrono::seconds(30);  // a pass that waited for it would stall the test
  Batcher batcher(options, [&](std::size_t docs, double) {
    std::lock_guard<std::mutex> lock(passes_mutex);
    passes.push_back(docs);
  });
  std::vector<Job> four;
  for (std::size_t i = 0; i < 4; ++i) four.push_back(job_of(model, {kTexts[i]}));
  for (std::size_t i = 0; i < four.size(); ++i) batcher.arriving();  // four in the server at once
  std::vector<std::thread> threads;
  for (Job& job : four) threads.emplace_back([&] { batcher.answer(job); });
  for (std::thread& t : threads) t.join();
  // Now two, one after the other: the first waits for the second (half of four), and the
  // two then share one pass at once.
  std::vector<Job> two{job_of(model, {kTexts[4]}), job_of(model, {kTexts[5]})};
  const auto start = std::chrono::steady_clock::now();
  std::thread first([&] { answer(batcher, two[0]); });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  {
    std::lock_guard<std::mutex> lock(passes_mutex);
    CHECK(passes.size() == 1);  // the first alone did not start a pass
  }
  answer(batcher, two[1]);
  first.join();
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));
  CHECK(passes == std::vector<std::size_t>{4, 2});
  for (std::size_t i = 0; i < 2; ++i) CHECK(near(two[i].probs, alone(*model, kTexts[4 + i])));
}
