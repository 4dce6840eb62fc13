#pragma once
/// \file
/// The constrained Euler–Lagrange equations of any model as a stabilised index-2 DAE in the
/// Gear–Gupta–Leimkuhler (GGL) form, with every derivative from L and g by automatic
/// differentiation. This is the residual the SUNDIALS IDA baseline (ida_dae.hpp) integrates.
///
/// Unknowns y = (q, v, λ, μ) ∈ R^{2n+2k}; G = Dg(q). The residual F(y, ẏ) = 0 is
///
///     q̇ − v − Gᵀ μ                    = 0   (GGL: μ = 0 on exact solutions, it projects q̇
///                                             back onto the velocity constraint)
///     L_vv v̇ + L_qvᵀ v − L_q − Gᵀ λ    = 0   (d/dt ∂L/∂v − ∂L/∂q = Gᵀ λ, cf. 000 eq. 4.4)
///     g(q)                            = 0   (position constraint)
///     G(q) v                          = 0   (velocity constraint)
///
/// q and v are differential, λ and μ algebraic. Both constraint levels are enforced, so neither
/// the positions nor the velocities drift off the manifold (the index-3 formulation would let the
/// velocities drift, the index-1 one the positions).

#include <Eigen/LU>

#include "mechint/model/constraint_derivatives.hpp"
#include "mechint/model/lagrangian_calculus.hpp"

namespace mechint {

/// The GGL residual of a constrained model (see the file comment) and its consistent start.
template <LagrangianModel M>
  requires(M::kNumConstraints > 0)
class ConstrainedDae {
 public:
  static constexpr int n = M::kDim;
  static constexpr int k = M::kNumConstraints;
  static constexpr int kSize = 2 * n + 2 * k;  ///< (q, v, λ, μ)
  using State = VecD<kSize>;

  explicit ConstrainedDae(M model) : model_(std::move(model)) {}

  const M& model() const { return model_; }

  /// F(y, ẏ) of the file comment; `y` and `yp` point at kSize doubles, `f` receives kSize.
  void residual(const double* y, const double* yp, double* f) const {
    const Eigen::Map<const State> ys(y), yps(yp);
    const VecD<n> q = ys.template segment<n>(0), v = ys.template segment<n>(n);
    const VecD<k> lambda = ys.template segment<k>(2 * n), mu = ys.template segment<k>(2 * n + k);
    const VecD<n> qd = yps.template segment<n>(0), vd = yps.template segment<n>(n);
    VecD<n> l_q;
    Mat<n, n> l_qv, l_vv;
    lagrangian_velocity_hessians(model_, q, v, l_q, l_qv, l_vv);
    VecD<k> g;
    Mat<k, n> dg;
    constraints_and_jacobian(model_, q, g, dg);
    Eigen::Map<State> out(f);
    out.template segment<n>(0) = qd - v - dg.transpose() * mu;
    out.template segment<n>(n) = l_vv * vd + l_qv.transpose() * v - l_q - dg.transpose() * lambda;
    out.template segment<k>(2 * n) = g;
    out.template segment<k>(2 * n + k) = dg * v;
  }

  /// Consistent (y, ẏ) at a start (q0, v0) on the manifold with v0 tangent: μ = 0, q̇ = v, and
  /// v̇, λ from the index-1 system [[L_vv, −Gᵀ], [G, 0]] (v̇, λ) = (L_q − L_qvᵀ v, −g''[v, v]).
  void consistent_start(const VecD<n>& q0, const VecD<n>& v0, State& y, State& yp) const {
    VecD<n> l_q;
    Mat<n, n> l_qv, l_vv;
    lagrangian_velocity_hessians(model_, q0, v0, l_q, l_qv, l_vv);
    VecD<k> g;
    Mat<k, n> dg;
    constraints_and_jacobian(model_, q0, g, dg);
    Mat<n + k, n + k> a = Mat<n + k, n + k>::Zero();
    a.template topLeftCorner<n, n>() = l_vv;
    a.template topRightCorner<n, k>() = -dg.transpose();
    a.template bottomLeftCorner<k, n>() = dg;
    VecD<n + k> b;
    b.template head<n>() = l_q - l_qv.transpose() * v0;
    b.template tail<k>() = -constraint_curvature(model_, q0, v0);
    const VecD<n + k> sol = a.fullPivLu().solve(b);
    y.setZero();
    yp.setZero();
    y.template segment<n>(0) = q0;
    y.template segment<n>(n) = v0;
    y.template segment<k>(2 * n) = sol.template tail<k>();
    yp.template segment<n>(0) = v0;
    yp.template segment<n>(n) = sol.template head<n>();
  }

  static VecD<n> position(const State& y) { return y.template segment<n>(0); }
  static VecD<n> velocity(const State& y) { return y.template segment<n>(n); }
  static VecD<k> multiplier(const State& y) { return y.template segment<k>(2 * n); }

 private:
  M model_;
};

}  // namespace mechint
