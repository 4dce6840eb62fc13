#pragma once
/// \file
/// What a mechanical model is, as a C++20 concept, and the uniform accessors the algorithms use.
///
/// A model is a plain struct (no base class, no virtual functions) that holds its parameters and
/// provides:
///
///   static constexpr int kDim;              // dimension n of the configuration space V = R^n
///   static constexpr int kNumConstraints;   // number k of holonomic constraints g(q) = 0 (may be 0)
///   static constexpr int kNumSymmetries;    // number of symmetry generators (may be 0)
///   template <class T> T lagrangian(const Vec<T, n>& q, const Vec<T, n>& qdot) const;
///
/// and, when the counts above are positive,
///
///   template <class T> Vec<T, k> constraints(const Vec<T, n>& q) const;      // g(q)
///   VecD<n> symmetry_generator(int i, const VecD<n>& q) const;              // ξ_V(q)
///
/// `T` is `double` or an automatic-differentiation jet: write the formula once, using `using std::sin`
/// style calls so that argument-dependent lookup finds the jet overloads. Every derivative the
/// integrators need (Jacobians of the discrete Euler–Lagrange equations, constraint gradients,
/// Legendre transforms) is obtained from these functions by forward-mode AD.
///
/// A symmetry generator ξ_V(q) is the infinitesimal generator of a one-parameter group under which
/// both L and g are invariant; its discrete Noether momentum is <p, ξ_V(q)> (000 §3.3).

#include <concepts>

#include "mechint/core/linear_algebra.hpp"

namespace mechint {

template <class M>
concept LagrangianModel = requires(const M& m, const Vec<double, M::kDim>& q) {
  { M::kDim } -> std::convertible_to<int>;
  { M::kNumConstraints } -> std::convertible_to<int>;
  { M::kNumSymmetries } -> std::convertible_to<int>;
  { m.template lagrangian<double>(q, q) } -> std::convertible_to<double>;
};

/// g(q) for any model; an empty vector when the model has no constraints.
template <LagrangianModel M, class T>
Vec<T, M::kNumConstraints> model_constraints(const M& model, const Vec<T, M::kDim>& q) {
  if constexpr (M::kNumConstraints > 0) {
    return model.template constraints<T>(q);
  } else {
    return Vec<T, 0>();
  }
}

/// ξ_V(q) of symmetry `i`.
template <LagrangianModel M>
VecD<M::kDim> model_symmetry_generator(const M& model, int i, const VecD<M::kDim>& q) {
  if constexpr (M::kNumSymmetries > 0) {
    return model.symmetry_generator(i, q);
  } else {
    (void)model, (void)i, (void)q;
    return VecD<M::kDim>::Zero();
  }
}

}  // namespace mechint
