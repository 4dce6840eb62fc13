#pragma once
/// \file
/// Fixed-size vector and matrix aliases used across mechint.
///
/// Every dimension in mechint is a compile-time constant of the model, so that a step works on
/// stack storage only and never allocates (Eigen fixed-size types never touch the heap).

#include <Eigen/Core>

namespace mechint {

/// Column vector of `N` scalars of type `T` (a double or an automatic-differentiation jet).
template <class T, int N>
using Vec = Eigen::Matrix<T, N, 1>;

/// `R x C` matrix of doubles.
template <int R, int C>
using Mat = Eigen::Matrix<double, R, C>;

/// `N x 1` vector of doubles.
template <int N>
using VecD = Eigen::Matrix<double, N, 1>;

}  // namespace mechint
