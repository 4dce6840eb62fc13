#pragma once
/// \file
/// The derivative kernels of a C++ model templated on the scalar (the built-in systems,
/// include/mechint/systems/): the third backend of the kernel boundary (model_kernels.h), by
/// automatic differentiation.
///
/// One instantiation per model type, whatever methods then run on it: a method added on the kernel
/// boundary (the Galerkin rules, compositions) reaches every built-in without being compiled again
/// for each. This header only declares the factories; their definitions, and the AD they
/// instantiate, are in kernel/model_adapter.txx, which the source that instantiates a model's kernels
/// includes (each built-in system's, MECHINT_INSTANTIATE_MODEL_KERNELS). Every other caller links to
/// those instantiations. The kernels never throw: a model's DomainError or a non-finite value is
/// MECHINT_KERNEL_OUTSIDE_DOMAIN.

#include <memory>

#include "kernel/kernel_model.hpp"
#include "mechint/model/lagrangian_model.hpp"

namespace mechint::kernel {

template <LagrangianModel M>
class ModelAdapter {
 public:
  /// The kernels of `model` (copied; it lives as long as the returned KernelModel). Its walls
  /// (model/unilateral.hpp) are part of the table only `with_walls`: a built-in's problem without
  /// active walls (the double pendulum without `wall=1`) reaches the smooth methods.
  static std::shared_ptr<const KernelModel> kernels(M model, bool with_walls = false);

  /// The kernels of `model` that also supply the variational rules' discrete derivatives
  /// (model_kernels.h, `discrete_rules`): D1, D2 and D12 Ld by nested AD of each rule's Ld, and for a
  /// forced model the discrete forces f⁻, f⁺ with ∂f⁻/∂q1 — the arithmetic of the fixed-size
  /// integrators (discrete/del_derivatives.hpp, discrete/discrete_forces.hpp), on the model's own
  /// discrete Lagrangian where it has one in closed form (DiscreteSystemFor: the rigid body's
  /// 000 eq. 5.8). The mixed block D12 is what the midpoint rule's Newton needs: a jet of jets over
  /// (q0, q1) computes it with less arithmetic than the whole Hessian of L over (q, v), from which
  /// the methods would otherwise compose it (kernel/discrete_rules.hpp) — except for a model with a
  /// constant mass matrix (kernels_for_runs chooses). The methods other than the rules take L's.
  static std::shared_ptr<const KernelModel> kernels_with_discrete_rules(M model, bool with_walls = false);

  /// The kernels a built-in system's runs on the kernel path use (app/builtin_kernels.hpp): those of
  /// kernels_with_discrete_rules, but for a model that declares L = ½ vᵀMv − V(q), whose rules the
  /// methods compose from its constant-mass kernels with less arithmetic than a jet of jets of Ld
  /// (the double spherical pendulum's kernel midpoint step: 1.57 µs composed, 2.06 µs supplied;
  /// the rigid body's, whose mass matrix depends on q: 5.44 µs composed, 1.36 µs supplied;
  /// bench/bench_rigid_body_dsp.cpp).
  static std::shared_ptr<const KernelModel> kernels_for_runs(M model, bool with_walls = false);
};

}  // namespace mechint::kernel
