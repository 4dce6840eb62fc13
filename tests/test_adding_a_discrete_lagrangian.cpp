// A discrete Lagrangian added in one file: Simpson's rule for the action integral, written here and
// nowhere else, runs through the kernel engine's variational integrator and the run loop as the
// built-in rules do. The engine takes a new rule into its rule table only in its own source (the
// command line's methods are the registry's rows, src/methods/, each a rule of the kernel engine); a
// model brings a discrete Lagrangian of its own in a rule's place instead, as the rigid body brings
// 000 eq. 5.8 for the midpoint rule (DiscreteSystemFor), and the AD backend (kernel/model_adapter.txx)
// differentiates it. Checked against the closed-form solution of its DEL recurrence on the harmonic
// oscillator (not the midpoint rule's), its order of convergence, and Noether's theorem on Kepler.
#include <gtest/gtest.h>

#include <cmath>
#include <string_view>
#include <vector>

#include "kernel/kernel_variational_integrator.hpp"
#include "kernel/model_adapter.txx"  // the kernels of this file's models, with their own discrete Lagrangian
#include "mechint/analysis/error_measures.hpp"
#include "mechint/core/linear_algebra.hpp"
#include "mechint/discrete/discrete_system.hpp"
#include "mechint/integrate/run_loop.hpp"
#include "mechint/model/lagrangian_model.hpp"
#include "mechint/systems/harmonic_oscillator.hpp"
#include "mechint/systems/kepler.hpp"

namespace {

// --- the new discrete Lagrangian ------------------------------------------------------------------
/// Simpson's rule on the straight segment: Ld = h/6 [L(q0, v) + 4 L((q0+q1)/2, v) + L(q1, v)],
/// v = (q1 − q0)/h. Symmetric, hence of even order: 2.
struct SimpsonRule {
  static constexpr int kOrder = 2;
  static constexpr std::string_view kName = "vi-simpson";
  static constexpr std::string_view kSummary = "variational integrator, Simpson discrete Lagrangian, order 2";

  template <mechint::LagrangianModel M, class T>
  static T evaluate(const M& model, const mechint::Vec<T, M::kDim>& q0, const mechint::Vec<T, M::kDim>& q1,
                    double h) {
    mechint::Vec<T, M::kDim> mid, v;
    for (int i = 0; i < M::kDim; ++i) {
      mid[i] = 0.5 * (q0[i] + q1[i]);
      v[i] = (q1[i] - q0[i]) * (1.0 / h);
    }
    return (h / 6.0) * (model.template lagrangian<T>(q0, v) + 4.0 * model.template lagrangian<T>(mid, v) +
                        model.template lagrangian<T>(q1, v));
  }
};
// --------------------------------------------------------------------------------------------------

/// A model whose discrete Lagrangian in the midpoint rule's place is Simpson's (the model itself
/// unchanged): what the variational methods are given for it, below.
template <class M>
struct WithSimpsonRule : M {};

}  // namespace

namespace mechint {
template <class M>
struct DiscreteSystemFor<WithSimpsonRule<M>, MidpointRule> {
  using type = DiscreteSystem<WithSimpsonRule<M>, SimpsonRule>;
};
}  // namespace mechint

namespace {

using namespace mechint;
using systems::HarmonicOscillator;

/// Runs the variational integrator of the Simpson rule on `model` from (q0, v0) through the run loop
/// and returns the rows t, q…, energy, Noether momenta at the output times (the recorder's order).
template <class M>
std::vector<std::vector<double>> run(const M& model, const VecD<M::kDim>& q0, const VecD<M::kDim>& v0, double h,
                                     double t_end, double every) {
  const auto kernels = kernel::ModelAdapter<WithSimpsonRule<M>>::kernels_for_runs(WithSimpsonRule<M>{model});
  EXPECT_TRUE(kernels->supplies_own_discrete_rule(MECHINT_RULE_MIDPOINT));
  kernel::KernelVariationalIntegrator vi(*kernels, kernel::Rule::kMidpoint, h);
  vi.start_from_velocity(kernel::Vector(q0), kernel::Vector(v0));
  const OutputSchedule schedule{h, t_end, every};
  std::vector<std::vector<double>> rows;
  integrate(vi, schedule, [&](const auto& s) {
    std::vector<double> row{output_time(s, schedule)};
    for (int i = 0; i < M::kDim; ++i) row.push_back(s.q()[i]);
    row.push_back(s.energy());
    for (int i = 0; i < M::kNumSymmetries; ++i) row.push_back(s.momentum(i));
    rows.push_back(std::move(row));
  });
  return rows;
}

TEST(AddingADiscreteLagrangian, MatchesTheClosedFormOfItsRecurrence) {
  // For L = m v²/2 − k q²/2 the DEL equations are q_{k+1} + q_{k−1} = 2 cos(θ) q_k with
  // cos θ = (1 − (ωh)²/3) / (1 + (ωh)²/6): Ld = (m/2h)(q1−q0)² − (hk/12)(q0² + (q0+q1)² + q1²).
  const double m = 2.0, k = 3.0, h = 0.05, w = std::sqrt(k / m);
  const double x = (w * h) * (w * h);
  const double cos_theta = (1 - x / 3) / (1 + x / 6);
  // θ from tan²(θ/2) = (1 − cos θ)/(1 + cos θ) = (x/2)/(2 − x/6), free of acos's loss near θ = 0.
  const double theta = 2 * std::atan(std::sqrt((x / 2) / (2 - x / 6)));
  // The momentum-form start gives q_1 from p0 = m v0; the recurrence then fixes everything else.
  const auto rows = run(HarmonicOscillator{m, k}, VecD<1>(0.7), VecD<1>(-0.4), h, 100.0, 0.0);
  ASSERT_EQ(rows.size(), 2001u);
  const double a = 0.7, b = (rows[1][1] - a * cos_theta) / std::sin(theta);
  for (std::size_t i = 0; i < rows.size(); ++i)
    ASSERT_NEAR(rows[i][1], a * std::cos(i * theta) + b * std::sin(i * theta), 1e-12) << "step " << i;
}

TEST(AddingADiscreteLagrangian, ConvergesAtOrderTwo) {
  const double t_end = 5.0;
  std::vector<double> hs, errors;
  for (int steps : {100, 200, 400, 800}) {
    const double h = t_end / steps;
    const auto rows = run(HarmonicOscillator{1.0, 1.0}, VecD<1>(1.0), VecD<1>(0.0), h, t_end, 0.0);
    hs.push_back(h);
    errors.push_back(std::abs(rows.back()[1] - std::cos(t_end)));
  }
  EXPECT_NEAR(convergence_order(hs, errors), 2.0, 0.05);
}

TEST(AddingADiscreteLagrangian, KeepsTheAngularMomentumOfKepler) {
  VecD<2> q0, v0;
  systems::Kepler::pericentre_start(1.0, 1.0, 0.5, q0, v0);
  const auto rows = run(systems::Kepler{1.0}, q0, v0, 0.05, 200.0, 1.0);
  const double j0 = rows.front()[4];
  for (const auto& r : rows) ASSERT_NEAR(r[4], j0, 1e-13 * std::abs(j0));
  // Energy: bounded oscillation, no drift.
  const double e0 = rows.front()[3];
  for (const auto& r : rows) ASSERT_NEAR(r[3], e0, 1e-2);
}

}  // namespace
