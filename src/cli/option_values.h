#pragma once
// The values an option takes, said the same way everywhere: in --help ("{a,b,c}"), in an
// error that names the option and the closest value, and in shell completion (self_docs).
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace han::cli {

// Accepts one of `names`. Its description is "{a,b,c}" (shown by --help, read back by the
// completion scripts); a wrong value reads `must be one of "a", "b", "c", got "x"`, with
// the closest name suggested.
CLI::Validator one_of(const std::vector<std::string>& names);

// Accepts a number from `lo` to `hi`, described as CLI::Range describes it ("INT in
// [0 - 1024]"); a value out of range reads `must be between 0 and 1024, got "5000"`, as
// config keys say it.
CLI::Validator in_range(double lo, double hi);
CLI::Validator in_range(int lo, int hi);

// -m,--model (required): the model file, or a run folder holding one; for every command
// that reads a model, with the same words in --help, the man page and completion.
CLI::Option* add_model_option(CLI::App* cmd, std::string& model);

// The names in a type name such as "TEXT:{a,b,c}" or "{a,b}", or none.
std::vector<std::string> names_in_type(const std::string& type_name);

}  // namespace han::cli
