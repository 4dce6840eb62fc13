#pragma once
/// \file
/// The one-step flows of the impact driver on a kernel model (integrate/one_step_flow.hpp's
/// contract, runtime-sized): a momentum-form map Φ_h(q0, p0) = (q1, p1) for any step size h — full
/// steps and the partial steps αh and (1−α)h of 004 §III-B — with the discrete energy −D3 Ld of the
/// step (what DTEC conserves) and the flow's own truncated modified Hamiltonian.
///
/// * `trapezoid` (vi-trapezoid, 004 eq. 16): p0 + D1 Ld(q0, q1, h) = 0 solved for q1 by the one
///   Newton solver on the row-scaled system h(p0 + D1 Ld), from q0 + h v(q0, p0);
///   p1 = D2 Ld(q0, q1, h); the discrete energy −D3 Ld = ½[E(q0, v) + E(q1, v)], v = (q1 − q0)/h
///   (differentiate Ld = h/2 [L(q0, v) + L(q1, v)] in h at fixed q0, q1: dv/dh = −v/h). A short step
///   (the partial steps αh, α as small as 1e-12) cannot take its velocity as (q1 − q0)/h: the
///   difference keeps only the digits of q1 − q0 (a step of 1e-14 gave p off by 1e-3). When
///   ‖q1 − q0‖∞ < 1e-4·(1 + ‖q0‖∞), v is solved from the DEL equation itself,
///   ½[L_v(q0, v) + L_v(q1, v)] − h/2 L_q(q0, v) = p0, and p1 = p0 + h/2 [L_q(q0, v) + L_q(q1, v)] —
///   the same p1 = D2 Ld at the root, with v only ever multiplied by h.
/// * `stormer-verlet` (the Lobatto IIIA–IIIB pair in Hamiltonian form, H from the Legendre transform):
///     p½ = p0 − h/2 · H_q(q0, p½)                      (implicit in p½)
///     q1 = q0 + h/2 · (H_p(q0, p½) + H_p(q1, p½))       (implicit in q1)
///     p1 = p½ − h/2 · H_q(q1, p½)                       (explicit)
///   each implicit stage by Newton with its exact Jacobian (I + h/2·H_qp, I − h/2·H_pq). With a
///   constant mass matrix it is the trapezoid VI; otherwise the two differ at O(h³) per step. It is
///   variational too: its Ld is the extremum of h/2·[L(q0, V0) + L(q1, V1)] over q1 = q0 + h/2 (V0 + V1),
///   whose energy −D3 Ld = ½[H(q0, p½) + H(q1, p½)] (envelope theorem) is what DTEC conserves.
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
