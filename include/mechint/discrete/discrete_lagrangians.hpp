#pragma once
/// \file
/// The three discrete Lagrangians of DESIGN §1 (quadrature rules for ∫_0^h L dt).
///
/// Convention: `Ld(q0, q1, h)` includes the factor h and takes the earlier point first (000 writes
/// 𝕃(y, x) without h, later point first). Each rule is a stateless type with
///   `evaluate(model, q0, q1, h)`  templated on the scalar type,
///   `kOrder` (the order of the integrator it induces) and `kName` (the CLI method name).

#include <string_view>

#include "mechint/core/autodiff.hpp"
#include "mechint/model/lagrangian_model.hpp"

namespace mechint {

/// Midpoint rule, 000 eq. 4.1: Ld = h·L((q0+q1)/2, (q1−q0)/h). Second order.
struct MidpointRule {
  static constexpr int kOrder = 2;
  static constexpr std::string_view kName = "vi-midpoint";

  template <LagrangianModel M, class T>
  static T evaluate(const M& model, const Vec<T, M::kDim>& q0, const Vec<T, M::kDim>& q1, double h) {
    Vec<T, M::kDim> q_mid, v;
    for (int i = 0; i < M::kDim; ++i) {
      q_mid[i] = 0.5 * (q0[i] + q1[i]);
      v[i] = (q1[i] - q0[i]) * (1.0 / h);
    }
    return h * model.template lagrangian<T>(q_mid, v);
  }
};

/// Trapezoid rule, 004 eq. 16: Ld = h/2·[L(q0, v) + L(q1, v)], v = (q1−q0)/h. Second order; for a
/// constant mass matrix it is the Störmer–Verlet method.
struct TrapezoidRule {
  static constexpr int kOrder = 2;
  static constexpr std::string_view kName = "vi-trapezoid";

  template <LagrangianModel M, class T>
  static T evaluate(const M& model, const Vec<T, M::kDim>& q0, const Vec<T, M::kDim>& q1, double h) {
    Vec<T, M::kDim> v;
    for (int i = 0; i < M::kDim; ++i) v[i] = (q1[i] - q0[i]) * (1.0 / h);
    return (0.5 * h) * (model.template lagrangian<T>(q0, v) + model.template lagrangian<T>(q1, v));
  }
};

/// Right-endpoint rule, 000 eq. 4.20: Ld = h·L(q1, (q1−q0)/h). First order; with a constant mass
/// matrix and constraints it reproduces SHAKE.
struct FirstOrderRule {
  static constexpr int kOrder = 1;
  static constexpr std::string_view kName = "vi-first-order";

  template <LagrangianModel M, class T>
  static T evaluate(const M& model, const Vec<T, M::kDim>& q0, const Vec<T, M::kDim>& q1, double h) {
    Vec<T, M::kDim> v;
    for (int i = 0; i < M::kDim; ++i) v[i] = (q1[i] - q0[i]) * (1.0 / h);
    return h * model.template lagrangian<T>(q1, v);
  }
};

}  // namespace mechint
