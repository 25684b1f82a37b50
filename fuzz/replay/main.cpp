// Replays a fuzz target's corpus without libFuzzer: links against one fuzz/<target>.cpp
// and runs its LLVMFuzzerTestOneInput on every file of the folders (or the files) given,
// in name order, each in a heap buffer of exactly its size (as libFuzzer passes it, so a
// sanitizer build sees an over-read). ctest runs it in the ordinary build on
// fuzz/corpus/<target>/, so the seeds and every finding kept there stay fixed. A target
// reports a bug by aborting (or a sanitizer does): the process dies, the test fails, and
// the file being replayed is the last one printed.
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

namespace fs = std::filesystem;

// The files named, a folder standing for its regular files, in name order.
std::vector<fs::path> inputs(int argc, char** argv) {
  std::vector<fs::path> out;
  for (int i = 1; i < argc; ++i) {
    const fs::path given = argv[i];
    if (!fs::is_directory(given)) {
      out.push_back(given);
      continue;
    }
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(given))
      if (e.is_regular_file()) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    out.insert(out.end(), files.begin(), files.end());
  }
  return out;
}

bool replay(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "%s: cannot read\n", file.c_str());
    return false;
  }
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::printf("%s (%zu bytes)\n", file.c_str(), bytes.size());
  std::fflush(stdout);  // named before it runs: a crash leaves it last in the log
  const std::unique_ptr<std::uint8_t[]> data(new std::uint8_t[std::max<std::size_t>(bytes.size(), 1)]);
  std::copy(bytes.begin(), bytes.end(), data.get());
  LLVMFuzzerTestOneInput(data.get(), bytes.size());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s CORPUS_FOLDER_OR_FILE...\n", argv[0]);
    return 2;
  }
  const auto start = std::chrono::steady_clock::now();
  const std::vector<fs::path> files = inputs(argc, argv);
  // An empty or missing corpus would pass without replaying anything.
  if (files.empty()) {
    std::fprintf(stderr, "%s: no inputs to replay\n", argv[1]);
    return 1;
  }
  for (const fs::path& f : files)
    if (!replay(f)) return 1;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("replayed %zu inputs in %.2f s\n", files.size(), seconds);
  return 0;
}
