#pragma once
/// \file
/// The three discrete Lagrangians of DESIGN §1 (quadrature rules for ∫_0^h L dt).
///
/// Convention: `Ld(q0, q1, h)` includes the factor h and takes the earlier point first (000 writes
/// 𝕃(y, x) without h, later point first). Each rule is a stateless type with
///   `evaluate(model, q0, q1, h)`  templated on the scalar type,
///   `kOrder` (the order of the integrator it induces), `kName` (the CLI method name) and
///   `kSummary` (its line in `mechint list`),
/// and, for models with hand-written derivatives of L (model/lagrangian_derivatives.hpp),
///   `derivatives(model, q0, q1, h, d1, d2, d12)`: D1 Ld, D2 Ld and D12 Ld built from them by the
///   chain rule (the formulas are derived in docs/conventions.md);
/// and, for forced models (model/forces.hpp),
///   `discrete_forces(model, q0, q1, u, t0, h, f_minus, f_plus)`: the left and right discrete forces
///   f⁻, f⁺ of the discrete Lagrange–d'Alembert principle, the same quadrature as Ld applied to the
///   virtual work ∫ f·δq dt over the step [t0, t0 + h] with the control u held (docs/forces.md).
///   A rule without it does not apply to forced models (DiscreteSystem refuses the pair at compile time).

#include <string_view>

#include "mechint/core/autodiff.hpp"
#include "mechint/model/forces.hpp"
#include "mechint/model/lagrangian_derivatives.hpp"
#include "mechint/model/lagrangian_model.hpp"

namespace mechint {

/// out = s·f for every scalar type (a double times a nested jet needs the scalar operators).
template <class T, int n>
void scale_force(double s, const Vec<T, n>& f, Vec<T, n>& out) {
  for (int i = 0; i < n; ++i) out[i] = s * f[i];
}

/// Midpoint rule, 000 eq. 4.1: Ld = h·L((q0+q1)/2, (q1−q0)/h). Second order.
struct MidpointRule {
  static constexpr int kOrder = 2;
  static constexpr std::string_view kName = "vi-midpoint";
  static constexpr std::string_view kSummary =
      "variational integrator, midpoint discrete Lagrangian (000 eq. 4.1), order 2";

  template <LagrangianModel M, class T>
  static T evaluate(const M& model, const Vec<T, M::kDim>& q0, const Vec<T, M::kDim>& q1, double h) {
    Vec<T, M::kDim> q_mid, v;
    for (int i = 0; i < M::kDim; ++i) {
      q_mid[i] = 0.5 * (q0[i] + q1[i]);
      v[i] = (q1[i] - q0[i]) * (1.0 / h);
    }
    return h * model.template lagrangian<T>(q_mid, v);
  }

  /// f⁻ = f⁺ = (h/2)·f(q_{k+½}, (q1−q0)/h, u, t0 + h/2): the midpoint quadrature of the virtual
  /// work, δq at the midpoint being (δq0 + δq1)/2 (DESIGN §7; Junge, Marsden, Ober-Blöbaum 2005).
  template <ForcedModel M, class T>
  static void discrete_forces(const M& model, const Vec<T, M::kDim>& q0, const Vec<T, M::kDim>& q1,
                              const Vec<T, kModelNumControls<M>>& u, double t0, double h,
                              Vec<T, M::kDim>& f_minus, Vec<T, M::kDim>& f_plus) {
    Vec<T, M::kDim> q_mid, v;
    for (int i = 0; i < M::kDim; ++i) {
      q_mid[i] = 0.5 * (q0[i] + q1[i]);
      v[i] = (q1[i] - q0[i]) * (1.0 / h);
    }
    scale_force(0.5 * h, model_generalized_force<M, T>(model, q_mid, v, u, t0 + 0.5 * h), f_minus);
    f_plus = f_minus;
  }

  template <HasLagrangianDerivatives M, int n = M::kDim>
  static void derivatives(const M& model, const VecD<n>& q0, const VecD<n>& q1, double h,
                          VecD<n>& d1, VecD<n>& d2, Mat<n, n>& d12) {
    LagrangianDerivatives<n> l;
    model.lagrangian_derivatives(0.5 * (q0 + q1), (q1 - q0) / h, l);
    // Ld = h L(q̄, v): D1 = h/2 L_q − L_v, D2 = h/2 L_q + L_v,
    // D12 = h/4 L_qq + ½ L_qv − ½ L_qvᵀ − L_vv / h.
    d1 = 0.5 * h * l.q - l.v;
    d2 = 0.5 * h * l.q + l.v;
    d12 = 0.25 * h * l.qq + 0.5 * (l.qv - l.qv.transpose()) - l.vv / h;
  }
};

/// Trapezoid rule, 004 eq. 16: Ld = h/2·[L(q0, v) + L(q1, v)], v = (q1−q0)/h. Second order; for a
/// constant mass matrix it is the Störmer–Verlet method.
struct TrapezoidRule {
  static constexpr int kOrder = 2;
  static constexpr std::string_view kName = "vi-trapezoid";
  static constexpr std::string_view kSummary =
      "variational integrator, trapezoid discrete Lagrangian (004 eq. 16), order 2; explicit (Stormer-Verlet) where "
      "L = T(qdot) - V(q) with a constant mass matrix; with impacts on systems with walls";

  template <LagrangianModel M, class T>
  static T evaluate(const M& model, const Vec<T, M::kDim>& q0, const Vec<T, M::kDim>& q1, double h) {
    Vec<T, M::kDim> v;
    for (int i = 0; i < M::kDim; ++i) v[i] = (q1[i] - q0[i]) * (1.0 / h);
    return (0.5 * h) * (model.template lagrangian<T>(q0, v) + model.template lagrangian<T>(q1, v));
  }

  /// f⁻ = (h/2)·f(q0, v, u, t0), f⁺ = (h/2)·f(q1, v, u, t0 + h), v = (q1−q0)/h: the trapezoid
  /// quadrature of the virtual work, each endpoint's force acting on that endpoint's variation.
  template <ForcedModel M, class T>
  static void discrete_forces(const M& model, const Vec<T, M::kDim>& q0, const Vec<T, M::kDim>& q1,
                              const Vec<T, kModelNumControls<M>>& u, double t0, double h,
                              Vec<T, M::kDim>& f_minus, Vec<T, M::kDim>& f_plus) {
    Vec<T, M::kDim> v;
    for (int i = 0; i < M::kDim; ++i) v[i] = (q1[i] - q0[i]) * (1.0 / h);
    scale_force(0.5 * h, model_generalized_force<M, T>(model, q0, v, u, t0), f_minus);
    scale_force(0.5 * h, model_generalized_force<M, T>(model, q1, v, u, t0 + h), f_plus);
  }

  template <HasLagrangianDerivatives M, int n = M::kDim>
  static void derivatives(const M& model, const VecD<n>& q0, const VecD<n>& q1, double h,
                          VecD<n>& d1, VecD<n>& d2, Mat<n, n>& d12) {
    LagrangianDerivatives<n> a, b;
    const VecD<n> v = (q1 - q0) / h;
    model.lagrangian_derivatives(q0, v, a);
    model.lagrangian_derivatives(q1, v, b);
    // Ld = h/2 [L(q0, v) + L(q1, v)]: D1 = h/2 L_q(a) − ½ (L_v(a) + L_v(b)),
    // D2 = h/2 L_q(b) + ½ (L_v(a) + L_v(b)), D12 = ½ L_qv(a) − ½ L_qv(b)ᵀ − (L_vv(a) + L_vv(b)) / (2h).
    d1 = 0.5 * h * a.q - 0.5 * (a.v + b.v);
    d2 = 0.5 * h * b.q + 0.5 * (a.v + b.v);
    d12 = 0.5 * a.qv - 0.5 * b.qv.transpose() - (a.vv + b.vv) / (2.0 * h);
  }
};

/// Right-endpoint rule, 000 eq. 4.20: Ld = h·L(q1, (q1−q0)/h). First order; with a constant mass
/// matrix and constraints it reproduces SHAKE.
struct FirstOrderRule {
  static constexpr int kOrder = 1;
  static constexpr std::string_view kName = "vi-first-order";
  static constexpr std::string_view kSummary =
      "variational integrator, right-endpoint discrete Lagrangian (000 eq. 4.20), order 1";

  template <LagrangianModel M, class T>
  static T evaluate(const M& model, const Vec<T, M::kDim>& q0, const Vec<T, M::kDim>& q1, double h) {
    Vec<T, M::kDim> v;
    for (int i = 0; i < M::kDim; ++i) v[i] = (q1[i] - q0[i]) * (1.0 / h);
    return h * model.template lagrangian<T>(q1, v);
  }

  /// f⁻ = 0, f⁺ = h·f(q1, v, u, t0 + h): the right-endpoint quadrature of the virtual work, the node
  /// Ld itself uses (so the pair is the discrete Lagrange–d'Alembert principle of one quadrature;
  /// first order like Ld).
  template <ForcedModel M, class T>
  static void discrete_forces(const M& model, const Vec<T, M::kDim>& q0, const Vec<T, M::kDim>& q1,
                              const Vec<T, kModelNumControls<M>>& u, double t0, double h,
                              Vec<T, M::kDim>& f_minus, Vec<T, M::kDim>& f_plus) {
    Vec<T, M::kDim> v;
    for (int i = 0; i < M::kDim; ++i) {
      v[i] = (q1[i] - q0[i]) * (1.0 / h);
      f_minus[i] = constant<T>(0.0);
    }
    scale_force(h, model_generalized_force<M, T>(model, q1, v, u, t0 + h), f_plus);
  }

  template <HasLagrangianDerivatives M, int n = M::kDim>
  static void derivatives(const M& model, const VecD<n>& q0, const VecD<n>& q1, double h,
                          VecD<n>& d1, VecD<n>& d2, Mat<n, n>& d12) {
    LagrangianDerivatives<n> b;
    model.lagrangian_derivatives(q1, (q1 - q0) / h, b);
    // Ld = h L(q1, v): D1 = −L_v, D2 = h L_q + L_v, D12 = −L_qvᵀ − L_vv / h.
    d1 = -b.v;
    d2 = h * b.q + b.v;
    d12 = -b.qv.transpose() - b.vv / h;
  }
};

/// The discrete Lagrangians of the templated library under their methods' names `Rule::kName`; the
/// command line's variational rows are the kernel rules of src/methods/variational_rules.cpp.
template <class... Rules>
struct RuleList {};

/// The rule states the discrete forces of forced model M (see the file comment).
template <class Rule, class M>
concept RuleWithDiscreteForces =
    ForcedModel<M> && requires(const M& m, const VecD<M::kDim>& q, const VecD<kModelNumControls<M>>& u,
                               VecD<M::kDim>& f) { Rule::discrete_forces(m, q, q, u, 0.0, 0.1, f, f); };
using CommandLineRules = RuleList<MidpointRule, TrapezoidRule, FirstOrderRule>;

}  // namespace mechint
