#pragma once
/// \file
/// Partial-pivoting LU of a runtime-sized square matrix that never allocates once sized.
///
/// Why not `Eigen::PartialPivLU<MatrixXd>`: above 16 unknowns it switches to its blocked algorithm,
/// whose matrix products take their packing workspace from the heap (mechint sets
/// EIGEN_STACK_ALLOCATION_LIMIT=0, docs/installing.md), so a Newton step of a 17-link chain or a
/// Lobatto step of the double spherical pendulum allocated. This class runs Eigen's own unblocked
/// factorisation (`internal::partial_lu_impl::unblocked_lu`, the very code PartialPivLU runs up to
/// 16 unknowns, so the factors are bit for bit PartialPivLU's there) at every size: rank-one updates
/// in place, O(n³) like the blocked one, without its cache blocking — which pays only far above the
/// few hundred unknowns of a step.
///
/// The solve is PartialPivLU's: the row interchanges applied to the right-hand side in order, then
/// the unit-lower and upper triangular solves in place (for one vector these take no workspace).
///
/// Up to kSmall unknowns (a short chain, Kepler, a small constrained model) both run as plain loops
/// instead, the size dispatched to a compile-time constant: the same operations in the same order as Eigen's code there (its
/// pivot search, row swap, column division and rank-one update; its column-oriented substitutions,
/// one panel wide at these sizes, zero entries skipped), so the factors and the solution are bit for
/// bit Eigen's (tests/test_newton.cpp, RuntimeLu), without the dispatch through Eigen's expression and
/// kernel layers that costs a 2 x 2 step more than its arithmetic (docs/performance-history.md, "A fast path
/// for short chains").

#include <cmath>
#include <utility>

#include <Eigen/Core>
#include <Eigen/LU>

// GCC's per-function switch; other compilers compile the loops as they choose.
#if defined(__GNUC__) && !defined(__clang__)
#define MECHINT_SCALAR_LOOPS [[gnu::optimize("no-tree-vectorize")]]
#else
#define MECHINT_SCALAR_LOOPS
#endif

namespace mechint {

class RuntimeLu {
 public:
  RuntimeLu() = default;
  explicit RuntimeLu(Eigen::Index size) : lu_(size, size), transpositions_(size) {}

  /// Factors `a` (square, of the size given at construction) into P·a = L·U. An exactly zero
  /// pivot is not an error here, as in PartialPivLU: the solve then gives non-finite values, which
  /// the callers test for.
  void compute(const Eigen::Ref<const Eigen::MatrixXd>& a) {
    if (a.rows() != lu_.rows()) lu_.resize(a.rows(), a.rows()), transpositions_.resize(a.rows());  // never in a step
    if (a.rows() <= kSmall) {
      with_small_size(a.rows(), [&]<int n>() { small_lu<n>(a); });
      return;
    }
    lu_ = a;  // same size: no allocation
    using Impl = Eigen::internal::partial_lu_impl<double, Eigen::ColMajor, int>;
    Impl::MatrixTypeRef lu_ref(lu_);
    int interchanges = 0;
    Impl::unblocked_lu(lu_ref, transpositions_.data(), interchanges);
  }

  /// x = a⁻¹·b; `x` may be `b` itself.
  void solve(const Eigen::Ref<const Eigen::VectorXd>& b, Eigen::Ref<Eigen::VectorXd> x) const {
    if (x.data() != b.data()) x = b;
    for (Eigen::Index k = 0; k < transpositions_.size(); ++k) std::swap(x[k], x[transpositions_[k]]);
    if (lu_.rows() <= kSmall) {
      with_small_size(lu_.rows(), [&]<int n>() { small_substitutions<n>(x.data()); });
      return;
    }
    lu_.triangularView<Eigen::UnitLower>().solveInPlace(x);
    lu_.triangularView<Eigen::Upper>().solveInPlace(x);
  }

  Eigen::Index size() const { return lu_.rows(); }

 private:
  /// At most Eigen's triangular panel width (EIGEN_TUNE_TRIANGULAR_PANEL_WIDTH, 8): one panel, so
  /// Eigen's substitutions are the plain column sweeps of small_substitutions.
  static constexpr Eigen::Index kSmall = 8;

  /// f.template operator()<n>() for the runtime size 1 ≤ n ≤ kSmall as a compile-time constant: the
  /// loops below then have known bounds (a 2 x 2 factorisation is a handful of instructions).
  template <class F>
  static void with_small_size(Eigen::Index n, F&& f) {
    switch (n) {
      case 1: return f.template operator()<1>();
      case 2: return f.template operator()<2>();
      case 3: return f.template operator()<3>();
      case 4: return f.template operator()<4>();
      case 5: return f.template operator()<5>();
      case 6: return f.template operator()<6>();
      case 7: return f.template operator()<7>();
      case 8: return f.template operator()<8>();
      default: return;  // no unknowns: nothing to factor or solve
    }
  }

  // The two loops below are kept scalar (MECHINT_SCALAR_LOOPS): vectorized by GCC, they read two
  // entries with one 16-byte load just after one of them was stored alone (a row swap, a
  // substitution's update), a load the store buffer cannot forward; it waits for the store to
  // retire, which made them most of a 5 x 5 solve's time (a rigid body's step: perf,
  // docs/performance-history.md). The arithmetic, entry by entry, is the same.

  /// a copied into lu_, then Eigen's unblocked_lu (PartialPivLU.h) on it, written out.
  template <int n>
  MECHINT_SCALAR_LOOPS void small_lu(const Eigen::Ref<const Eigen::MatrixXd>& a) {
    static_assert(n <= kSmall);
    double* const m = lu_.data();
    for (Eigen::Index j = 0; j < n; ++j)
      for (Eigen::Index i = 0; i < n; ++i) m[i + j * n] = a(i, j);
    for (Eigen::Index k = 0; k < n; ++k) {
      Eigen::Index pivot = k;  // the first largest |entry| of column k from row k down
      double biggest = std::abs(m[k + k * n]);
      for (Eigen::Index i = k + 1; i < n; ++i)
        if (std::abs(m[i + k * n]) > biggest) biggest = std::abs(m[i + k * n]), pivot = i;
      transpositions_[k] = static_cast<int>(pivot);
      if (biggest != 0.0) {
        if (pivot != k)
          for (Eigen::Index j = 0; j < n; ++j) std::swap(m[k + j * n], m[pivot + j * n]);
        for (Eigen::Index i = k + 1; i < n; ++i) m[i + k * n] /= m[k + k * n];
      }
      for (Eigen::Index j = k + 1; j < n; ++j) {
        const double u = m[k + j * n];
        for (Eigen::Index i = k + 1; i < n; ++i) m[i + j * n] -= u * m[i + k * n];
      }
    }
  }

  /// L y = x (unit diagonal), then U x = y, in place: Eigen's column-major triangular_solve_vector
  /// for one panel.
  template <int n>
  MECHINT_SCALAR_LOOPS void small_substitutions(double* x) const {
    const double* const m = lu_.data();
    for (Eigen::Index i = 0; i < n; ++i) {
      if (x[i] == 0.0) continue;
      for (Eigen::Index r = i + 1; r < n; ++r) x[r] -= x[i] * m[r + i * n];
    }
    for (Eigen::Index i = n - 1; i >= 0; --i) {
      if (x[i] == 0.0) continue;
      x[i] /= m[i + i * n];
      for (Eigen::Index r = 0; r < i; ++r) x[r] -= x[i] * m[r + i * n];
    }
  }

  Eigen::MatrixXd lu_;
  Eigen::VectorXi transpositions_;
};

}  // namespace mechint
