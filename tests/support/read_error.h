// What read_examples says of a bad data file: its message (exit code 2 checked), or
// "(no error)" when the file reads. `how` is what read_examples takes after the format:
// whether labels are required, or the LabelOptions of a task.
#pragma once

#include <catch2/catch.hpp>

#include <string>

#include "han/core/error.h"
#include "han/text/dataset.h"

namespace han::test {

template <class How>
std::string read_error(const std::string& path, DataFormat format, const How& how) {
  try {
    read_examples(path, format, how);
  } catch (const Error& e) {
    CHECK(e.exit_code() == 2);
    return e.what();
  }
  return "(no error)";
}

inline std::string read_error(const std::string& path, DataFormat format) { return read_error(path, format, true); }

}  // namespace han::test
