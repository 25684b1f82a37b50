#pragma once
// A read-only (rows x cols) column-major float tensor that stays where it was read: in a
// model file mapped into memory (infer/model_file.h, format 3). Its bytes are checked
// against the file's checksums the first time they are used, a chunk at a time, so a
// one-line prediction with a large model reads and checks only the columns it needs.
// Every reader asks for what it is about to read (column, columns, all) and gets it
// checked; a damaged chunk is a han::Error naming the file, never a wrong number. (Bytes
// are checked as they were when first read: a file rewritten in place afterwards is not
// seen; han replaces files by renaming, and docs/formats.md asks users to.)
#include <memory>

#include "han/core/types.h"

namespace han {

// Checks byte ranges of one file against their checksums, each chunk once.
class ByteCheck {
 public:
  virtual ~ByteCheck() = default;
  // han::Error (exit 2) naming the file when a chunk overlapping [begin, begin + n) differs.
  virtual void check(const char* begin, std::size_t n) const = 0;
};

using ConstMap = Eigen::Map<const Matrix>;

class TensorView {
 public:
  TensorView() = default;
  TensorView(const float* data, Index rows, Index cols, std::shared_ptr<const ByteCheck> check)
      : data_(data), rows_(rows), cols_(cols), check_(std::move(check)) {}

  bool empty() const { return data_ == nullptr; }  // no tensor held (the owner's Matrix is used)
  Index rows() const { return rows_; }
  Index cols() const { return cols_; }
  // Columns [first, first + n), checked.
  const float* columns(Index first, Index n) const { return values(first * rows_, n * rows_); }
  const float* column(Index c) const { return columns(c, 1); }
  // Values [first, first + n) in column-major order, checked.
  const float* values(Index first, Index n) const;
  // The whole tensor, checked.
  ConstMap all() const;
  // A copy in a Matrix of its own (checked).
  Matrix copy() const { return all(); }

 private:
  const float* data_ = nullptr;
  Index rows_ = 0, cols_ = 0;
  std::shared_ptr<const ByteCheck> check_;  // also keeps the mapping alive
};

// The tensor `owned`, or the stored one when `stored` holds it (read-only either way).
// Callers check what they read through TensorView; an owned Matrix needs no check.
inline ConstMap read_view(const Matrix& owned, const TensorView& stored) {
  return stored.empty() ? ConstMap(owned.data(), owned.rows(), owned.cols()) : stored.all();
}

}  // namespace han
