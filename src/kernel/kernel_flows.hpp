#pragma once
/// \file
/// The one-step flows of the impact driver on a kernel model (integrate/one_step_flow.hpp's
/// contract, runtime-sized): a momentum-form map Φ_h(q0, p0) = (q1, p1) for any step size h — full
/// steps and the partial steps αh and (1−α)h of 004 §III-B — with the discrete energy −D3 Ld of the
/// step (what DTEC conserves) and the flow's own truncated modified Hamiltonian.
///
/// * `trapezoid` (vi-trapezoid, 004 eq. 16): p0 + D1 Ld(q0, q1, h) = 0 solved for q1 by the one
///   Newton solver on the row-scaled system h(p0 + D1 Ld) (solve/del_newton.hpp's tests), from
///   q0 + h v(q0, p0); p1 = D2 Ld(q0, q1, h); −D3 Ld = ½[E(q0, v) + E(q1, v)], v = (q1 − q0)/h.
///   integrate/trapezoid_flow.hpp line for line.
/// * `stormer-verlet` (Lobatto IIIA–IIIB in Hamiltonian form): the two implicit stages and the
///   explicit one of integrate/stormer_verlet.hpp, each Newton with its exact Jacobian.
///
/// Both are the explicit Störmer–Verlet map on a separable model (L = ½ vᵀM v + b·v − V(q), M and b
/// constant: kernel/separable.hpp) once told so by set_separable: D1 Ld is then linear in q1 and
/// H_q does not depend on p, so
///
///     v = M⁻¹(p0 − b + h/2 L_q(q0)),  q1 = q0 + h v,  p1 = M v + b + h/2 L_q(q1),
///
/// and the discrete energy ½[E(q0, v) + E(q1, v)] = ½ vᵀM v − ½[L(q0, 0) + L(q1, 0)] (the two flows'
/// energies agree there). Newton would reach the same map to round-off after two evaluations of the
/// Hessian blocks per stage; this takes two of L's gradient. A trapezoid flow on a model that supplies
/// its own discrete Lagrangian (a chart's) keeps Newton: its Ld is not the quadrature of L.
///
/// Unconstrained models without forces (the impact driver's). Storage sized once: a step never
/// allocates; full Newton keeps nothing between steps.

#include <memory>
#include <optional>
#include <string_view>

#include "kernel/kernel_model.hpp"
#include "kernel/separable.hpp"
#include "mechint/analysis/modified_hamiltonian.hpp"
#include "mechint/integrate/one_step_flow.hpp"
#include "mechint/solve/newton_options.hpp"

namespace mechint::kernel {

class KernelFlow {
 public:
  virtual ~KernelFlow() = default;
  /// One step of size h from (q0, p0); q1 and p1 sized by the caller.
  virtual StepResult step(const Vector& q0, const Vector& p0, double h, Vector& q1, Vector& p1) = 0;
  /// The truncated modified Hamiltonian the method conserves to O(h⁴) (analysis/modified_hamiltonian.hpp).
  virtual ModifiedHamiltonianKind modified_hamiltonian_kind() const = 0;
  virtual std::string_view name() const = 0;
  /// Step explicitly from now on with these separable kinetics (see the file comment); nothing:
  /// by Newton again.
  virtual void set_separable(const std::optional<SeparableKinetics>& kinetics) = 0;
};

/// The two flows: the trapezoid rule's (the method vi-trapezoid) and generalized Störmer–Verlet's.
enum class Flow { kTrapezoid, kStormerVerlet };

std::unique_ptr<KernelFlow> make_kernel_flow(Flow flow, const KernelModel& model, NewtonOptions newton = {});

}  // namespace mechint::kernel
