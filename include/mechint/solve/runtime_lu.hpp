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

#include <utility>

#include <Eigen/Core>
#include <Eigen/LU>

namespace mechint {

class RuntimeLu {
 public:
  RuntimeLu() = default;
  explicit RuntimeLu(Eigen::Index size) : lu_(size, size), transpositions_(size) {}

  /// Factors `a` (square, of the size given at construction) into P·a = L·U. An exactly zero
  /// pivot is not an error here, as in PartialPivLU: the solve then gives non-finite values, which
  /// the callers test for.
  void compute(const Eigen::Ref<const Eigen::MatrixXd>& a) {
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
    lu_.triangularView<Eigen::UnitLower>().solveInPlace(x);
    lu_.triangularView<Eigen::Upper>().solveInPlace(x);
  }

  Eigen::Index size() const { return lu_.rows(); }

 private:
  Eigen::MatrixXd lu_;
  Eigen::VectorXi transpositions_;
};

}  // namespace mechint
