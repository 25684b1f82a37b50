// What read_examples says of a bad data file: its message (exit code 2 checked), or
// "(no error)" when the file reads.
#pragma once

#include <catch2/catch.hpp>

#include <string>

#include "han/core/error.h"
#include "han/text/dataset.h"

namespace han::test {

inline std::string read_error(const std::string& path, DataFormat format, bool require_labels = true) {
  try {
    read_examples(path, format, require_labels);
  } catch (const Error& e) {
    CHECK(e.exit_code() == 2);
    return e.what();
  }
  return "(no error)";
}

}  // namespace han::test
