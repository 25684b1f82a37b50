#include "han/core/tensor_view.h"

#include "han/core/error.h"

namespace han {

const float* TensorView::values(Index first, Index n) const {
  HAN_ASSERT(first >= 0 && n >= 0 && first + n <= rows_ * cols_);
  const float* begin = data_ + first;
  if (check_ && n > 0) check_->check(reinterpret_cast<const char*>(begin), sizeof(float) * static_cast<std::size_t>(n));
  return begin;
}

ConstMap TensorView::all() const { return ConstMap(columns(0, cols_), rows_, cols_); }

}  // namespace han
