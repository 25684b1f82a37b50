#pragma once
// Numeric types and Eigen aliases. Eigen is column-major: one column per token,
// sentence or document; features run down the rows.
//
// Dimension letters used in shape comments throughout:
//   B documents, S sentences (padded per batch), W words (padded per batch),
//   T real tokens in a batch, N real sentences in a batch,
//   E embedding size, H hidden size per GRU direction, A attention size, C classes.
#include <Eigen/Core>
#include <cstdint>
#include <vector>

namespace han {

using Scalar = float;
using Matrix = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>;
using Vector = Eigen::Matrix<Scalar, Eigen::Dynamic, 1>;
using RowVector = Eigen::Matrix<Scalar, 1, Eigen::Dynamic>;
using IdMatrix = Eigen::Matrix<std::int32_t, Eigen::Dynamic, Eigen::Dynamic>;
using Index = Eigen::Index;

}  // namespace han
