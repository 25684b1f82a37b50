// libFuzzer target: the tsv reader (see reader_target.h).
#include "reader_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return fuzz_reader(data, size, han::DataFormat::tsv);
}
