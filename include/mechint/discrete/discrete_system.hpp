#pragma once
/// \file
/// A discrete mechanical system: a discrete Lagrangian Ld(q0, q1, h) and holonomic constraints g(q)
/// on the same coordinates, plus the continuous model used for starts and diagnostics.
///
/// This is the interface the Newton solver and the integrators are written against
/// (`DiscreteMechanicalSystem`). `DiscreteSystem<Model, Rule>` builds one from a model and a
/// quadrature rule; `ChartedDiscreteSystem` (chart.hpp) builds the generalized-coordinate
/// formulation of 000 §4.2 from a constrained model and a chart.

#include <concepts>

#include "mechint/discrete/discrete_lagrangians.hpp"
#include "mechint/model/lagrangian_model.hpp"

namespace mechint {

template <class S>
concept DiscreteMechanicalSystem =
    requires(const S& s, const Vec<double, S::kDim>& q) {
      { S::kDim } -> std::convertible_to<int>;
      { S::kNumConstraints } -> std::convertible_to<int>;
      { s.template discrete_lagrangian<double>(q, q, 0.1) } -> std::convertible_to<double>;
      { s.template constraints<double>(q) };
      { s.continuous_model() };
    } && LagrangianModel<std::remove_cvref_t<decltype(std::declval<const S&>().continuous_model())>>;

/// Ld = Rule applied to the model's Lagrangian; constraints are the model's own (000 eqs. 4.4–4.6).
/// For a forced model (model/forces.hpp) also the rule's discrete forces f⁻, f⁺ (docs/forces.md).
template <LagrangianModel Model, class Rule>
class DiscreteSystem {
  static_assert(!ForcedModel<Model> || RuleWithDiscreteForces<Rule, Model>,
                "this discrete Lagrangian states no discrete forces (Rule::discrete_forces), so it "
                "does not apply to a model with forces");

 public:
  static constexpr int kDim = Model::kDim;
  static constexpr int kNumConstraints = Model::kNumConstraints;
  /// Control inputs u of the model (0 for an unforced model).
  static constexpr int kNumControls = kModelNumControls<Model>;
  using ContinuousModel = Model;
  using QuadratureRule = Rule;

  explicit DiscreteSystem(Model model) : model_(std::move(model)) {}

  template <class T>
  T discrete_lagrangian(const Vec<T, kDim>& q0, const Vec<T, kDim>& q1, double h) const {
    return Rule::evaluate(model_, q0, q1, h);
  }

  template <class T>
  Vec<T, kNumConstraints> constraints(const Vec<T, kDim>& q) const {
    return model_constraints<Model, T>(model_, q);
  }

  const Model& continuous_model() const { return model_; }

  /// Left and right discrete forces f⁻, f⁺ of the step from (q0, t0) to q1 under the held control u.
  template <class T>
  void discrete_forces(const Vec<T, kDim>& q0, const Vec<T, kDim>& q1, const Vec<T, kNumControls>& u,
                       double t0, double h, Vec<T, kDim>& f_minus, Vec<T, kDim>& f_plus) const
    requires ForcedModel<Model>
  {
    Rule::discrete_forces(model_, q0, q1, u, t0, h, f_minus, f_plus);
  }

  /// D1 Ld, D2 Ld and D12 Ld from the model's hand-written derivatives, when it has them.
  void discrete_lagrangian_derivatives(const VecD<kDim>& q0, const VecD<kDim>& q1, double h,
                                       VecD<kDim>& d1, VecD<kDim>& d2, Mat<kDim, kDim>& d12) const
    requires HasLagrangianDerivatives<Model>
  {
    Rule::derivatives(model_, q0, q1, h, d1, d2, d12);
  }

 private:
  Model model_;
};

/// The discrete system a variational method builds for `Model` and `Rule`: `DiscreteSystem` unless
/// a model knows that rule's discrete Lagrangian in closed form and specializes this trait (the
/// rigid body's midpoint rule is 000 eq. 5.8: systems/rigid_body.hpp).
template <class Model, class Rule>
struct DiscreteSystemFor {
  using type = DiscreteSystem<Model, Rule>;
};

}  // namespace mechint
