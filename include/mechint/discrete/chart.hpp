#pragma once
/// \file
/// The generalized-coordinate formulation of 000 §4.2.
///
/// A chart ψ : U ⊂ R^m → Q ⊂ R^n parametrizes the constraint manifold Q = {g = 0}. A chart type
/// provides
///
///   static constexpr int kChartDim, kAmbientDim;
///   template <class T> Vec<T, n> embed(const Vec<T, m>& theta) const;                      // ψ(θ)
///   template <class T> Vec<T, n> embed_velocity(const Vec<T, m>& theta,
///                                                const Vec<T, m>& theta_dot) const;       // Dψ(θ) θ̇
///   VecD<m> coordinates_of(const VecD<n>& x) const;                                       // ψ⁻¹(x)
///   void wrap_periodic(VecD<m>& prev, VecD<m>& cur) const;   // optional: shift angles by 2π
///
/// `ChartedDiscreteSystem` uses the restricted discrete Lagrangian 𝕃^c(θ0, θ1) = Ld(ψ(θ0), ψ(θ1))
/// of 000 eq. 4.9 — not a quadrature of the Lagrangian written in θ — so that by Theorem 4.3.1 its
/// motion is exactly the constrained one: ψ(θ_k) = q_k. `ChartModel` is the continuous Lagrangian
/// in θ, L^c(θ, θ̇) = L(ψ(θ), Dψ(θ)θ̇), used for starts and for energy.

#include <Eigen/LU>

#include "mechint/core/autodiff.hpp"
#include "mechint/discrete/discrete_system.hpp"

namespace mechint {

/// Dψ(θ) (n × m) by forward-mode AD of `embed`.
template <class Chart>
Mat<Chart::kAmbientDim, Chart::kChartDim> chart_jacobian(const Chart& chart,
                                                         const VecD<Chart::kChartDim>& theta) {
  constexpr int m = Chart::kChartDim;
  const auto x = chart.template embed<Jet<m>>(seed_gradient<m>(theta));
  Mat<Chart::kAmbientDim, m> j;
  for (int r = 0; r < Chart::kAmbientDim; ++r) j.row(r) = x[r].v.transpose();
  return j;
}

/// L^c(θ, θ̇) = L(ψ(θ), Dψ(θ)θ̇): an unconstrained model in chart coordinates.
template <LagrangianModel Model, class Chart>
class ChartModel {
  static_assert(Chart::kAmbientDim == Model::kDim, "chart must map into the model's space");

 public:
  static constexpr int kDim = Chart::kChartDim;
  static constexpr int kNumConstraints = 0;
  static constexpr int kNumSymmetries = Model::kNumSymmetries;

  ChartModel(Model model, Chart chart) : model_(std::move(model)), chart_(std::move(chart)) {}

  template <class T>
  T lagrangian(const Vec<T, kDim>& theta, const Vec<T, kDim>& theta_dot) const {
    return model_.template lagrangian<T>(chart_.template embed<T>(theta),
                                         chart_.template embed_velocity<T>(theta, theta_dot));
  }

  /// ξ^c(θ) with Dψ(θ) ξ^c = ξ(ψ(θ)): the ambient generator is tangent to Q, so the least-squares
  /// solution is exact.
  VecD<kDim> symmetry_generator(int i, const VecD<kDim>& theta) const {
    const auto j = chart_jacobian(chart_, theta);
    const VecD<Model::kDim> xi =
        model_symmetry_generator(model_, i, chart_.template embed<double>(theta));
    return (j.transpose() * j).partialPivLu().solve(j.transpose() * xi);
  }

  const Model& ambient_model() const { return model_; }
  const Chart& chart() const { return chart_; }

 private:
  Model model_;
  Chart chart_;
};

/// 𝕃^c(θ0, θ1, h) = Ld(ψ(θ0), ψ(θ1), h) (000 eq. 4.9), unconstrained; DEL equations (4.11)–(4.12).
template <LagrangianModel Model, class Chart, class Rule>
class ChartedDiscreteSystem {
  // The pull-back of the discrete forces by Dψ is not implemented: refuse rather than drop them.
  static_assert(!ForcedModel<Model>, "a chart formulation of a model with forces is not supported");

 public:
  static constexpr int kDim = Chart::kChartDim;
  static constexpr int kNumConstraints = 0;
  using ContinuousModel = ChartModel<Model, Chart>;
  using QuadratureRule = Rule;

  ChartedDiscreteSystem(Model model, Chart chart) : chart_model_(std::move(model), std::move(chart)) {}
  explicit ChartedDiscreteSystem(ContinuousModel chart_model) : chart_model_(std::move(chart_model)) {}

  template <class T>
  T discrete_lagrangian(const Vec<T, kDim>& theta0, const Vec<T, kDim>& theta1, double h) const {
    const Chart& c = chart_model_.chart();
    return Rule::evaluate(chart_model_.ambient_model(), c.template embed<T>(theta0),
                          c.template embed<T>(theta1), h);
  }

  template <class T>
  Vec<T, 0> constraints(const Vec<T, kDim>&) const {
    return Vec<T, 0>();
  }

  const ContinuousModel& continuous_model() const { return chart_model_; }
  const Chart& chart() const { return chart_model_.chart(); }

  /// Moves a pair of consecutive points to the canonical representatives of a periodic chart
  /// (if the chart declares `wrap_periodic`); called by the integrator after each step.
  void wrap_periodic(VecD<kDim>& previous, VecD<kDim>& current) const {
    if constexpr (requires { chart().wrap_periodic(previous, current); })
      chart().wrap_periodic(previous, current);
  }

 private:
  ContinuousModel chart_model_;
};

/// The discrete system of the model in chart coordinates is the restricted one (000 eq. 4.9), not a
/// quadrature of L^c: what a variational method, and the kernels of ChartModel
/// (kernel/model_adapter.hpp), take for each rule.
template <LagrangianModel Model, class Chart, class Rule>
struct DiscreteSystemFor<ChartModel<Model, Chart>, Rule> {
  using type = ChartedDiscreteSystem<Model, Chart, Rule>;
};

}  // namespace mechint
