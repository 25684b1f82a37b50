#pragma once
// The config's enumerations and their names. Each enum has one name table, in value
// order; config parsing, config_to_json, the config reference and the command line's
// choices (CLI::IsMember) all read it, so a new value is added in one place.
#include <array>
#include <cstddef>
#include <string>
#include <type_traits>
#include <vector>

namespace han {

enum class MaskMode { none, renorm, additive };
enum class Pooling { attention, mean };
// A linear term over each document's bag of words beside the HAN (nn/layers/bag.h).
enum class Bag { none, words };
// What the linear member reads: the whole document, or the words within the tokenizer's
// caps (what the HAN reads).
enum class LinearText { whole, caps };
enum class BatchStrategy { bucket, random };
enum class DataFormat { jsonl, fasttext, tsv, folder, auto_detect };  // auto_detect: "auto"
enum class OptimizerName { adam, sgd, adamw };
enum class LrSchedule { constant, linear, cosine };
// How the ranks of a job under mpirun sum their gradients (train/gradient_workers.h).
enum class AllreduceMode { mpi, exact };
// The dev score that picks the best epoch; auto = the task's default (core/select_metric.h).
enum class SelectMetric {
  auto_,
  accuracy,
  macro_f1,
  loss,
  micro_f1,
  subset_accuracy,
  hamming_loss,
  precision_at_1,
  rmse,
  mae,
  pearson,
  spearman
};
// single: one label per document (softmax); multilabel: a label set (a sigmoid per label);
// regression: a number (a linear output).
enum class Task { single, multilabel, regression };
enum class RegressionLoss { mse, huber };
// A setting that is off, on, or decided from the rest of the config. In JSON, off and on
// are the booleans false and true; auto is "auto".
enum class Switch { off, on, auto_ };
// How input bytes are read (core/text_decoding.h): auto = UTF-8, and a line that is not
// UTF-8 as Windows-1252; utf-8 = strict (invalid bytes become U+FFFD).
enum class TextEncoding { auto_, utf8, latin1, windows1252 };

// EnumNames<E>::names[i] is the name of static_cast<E>(i).
template <class E>
struct EnumNames;
template <>
struct EnumNames<MaskMode> {
  static constexpr std::array<const char*, 3> names = {"none", "renorm", "additive"};
};
template <>
struct EnumNames<Pooling> {
  static constexpr std::array<const char*, 2> names = {"attention", "mean"};
};
template <>
struct EnumNames<Bag> {
  static constexpr std::array<const char*, 2> names = {"none", "words"};
};
template <>
struct EnumNames<LinearText> {
  static constexpr std::array<const char*, 2> names = {"whole", "caps"};
};
template <>
struct EnumNames<BatchStrategy> {
  static constexpr std::array<const char*, 2> names = {"bucket", "random"};
};
template <>
struct EnumNames<DataFormat> {
  static constexpr std::array<const char*, 5> names = {"jsonl", "fasttext", "tsv", "folder", "auto"};
};
template <>
struct EnumNames<OptimizerName> {
  static constexpr std::array<const char*, 3> names = {"adam", "sgd", "adamw"};
};
template <>
struct EnumNames<LrSchedule> {
  static constexpr std::array<const char*, 3> names = {"constant", "linear", "cosine"};
};
template <>
struct EnumNames<AllreduceMode> {
  static constexpr std::array<const char*, 2> names = {"mpi", "exact"};
};
template <>
struct EnumNames<SelectMetric> {
  static constexpr std::array<const char*, 12> names = {
      "auto",         "accuracy",       "macro_f1", "loss", "micro_f1", "subset_accuracy",
      "hamming_loss", "precision_at_1", "rmse",     "mae",  "pearson",  "spearman"};
};
template <>
struct EnumNames<Task> {
  static constexpr std::array<const char*, 3> names = {"single", "multilabel", "regression"};
};
template <>
struct EnumNames<RegressionLoss> {
  static constexpr std::array<const char*, 2> names = {"mse", "huber"};
};
template <>
struct EnumNames<Switch> {
  static constexpr std::array<const char*, 3> names = {"false", "true", "auto"};
};

template <>
struct EnumNames<TextEncoding> {
  static constexpr std::array<const char*, 4> names = {"auto", "utf-8", "latin-1", "windows-1252"};
};

namespace detail {
const char* name_at(const char* const* names, std::size_t count, std::size_t index);
std::size_t index_of_name(const char* const* names, std::size_t count, const std::string& name,
                          const std::string& key);
// An encoding's name as EnumNames<TextEncoding> spells it: any case, and the other names
// of each (utf8, latin1, iso-8859-1, iso8859-1, cp1252, windows1252); else `name` itself.
std::string encoding_name(const std::string& name);
}  // namespace detail

// The name of a value. (Only for the enums above: others have no EnumNames.)
template <class E, class = decltype(EnumNames<E>::names)>
const char* to_string(E value) {
  const auto& names = EnumNames<E>::names;
  return detail::name_at(names.data(), names.size(), static_cast<std::size_t>(value));
}

// Every name, in value order (for CLI::IsMember and listings).
template <class E>
std::vector<std::string> enum_names() {
  const auto& names = EnumNames<E>::names;
  return {names.begin(), names.end()};
}

// The value called `name`. Any other text: han::Error "KEY: must be one of "a", "b", got
// "x"", where `key` names the setting (a key path, or a command-line option).
template <class E>
E parse_enum(const std::string& name, const std::string& key) {
  const auto& names = EnumNames<E>::names;
  if constexpr (std::is_same_v<E, TextEncoding>) {
    return static_cast<E>(detail::index_of_name(names.data(), names.size(), detail::encoding_name(name), key));
  } else {
    return static_cast<E>(detail::index_of_name(names.data(), names.size(), name, key));
  }
}

}  // namespace han
