#pragma once
/// \file
/// A kernel model's separable kinetic energy (model/separable_lagrangian.hpp's test on its kernels):
/// L = ½ vᵀM v + b·v − V(q), M and b constant. The trapezoid rule (Lobatto IIIA–IIIB with two stages)
/// in momentum form is then the explicit Störmer–Verlet method (galerkin_integrator.hpp).

#include <optional>

#include "kernel/kernel_model.hpp"

namespace mechint::kernel {

/// The constant terms of a separable Lagrangian: M, M⁻¹ (n x n) and b = ∂L/∂v(q, 0).
struct SeparableKinetics {
  RowMatrix mass;
  RowMatrix mass_inverse;
  Vector linear;
};

/// M⁻¹ and b when the model is found separable around (q0, v0); nothing otherwise, and for a model
/// with constraints or forces (which the explicit form does not cover). Allocates (once, at a start).
std::optional<SeparableKinetics> separable_kinetics(const KernelModel& model, const Vector& q0, const Vector& v0);

}  // namespace mechint::kernel
