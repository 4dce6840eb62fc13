// A discrete Lagrangian added in one file: Simpson's rule for the action integral, written here and
// nowhere else, runs through the templated library's variational integrator and run loop as the
// built-in rules do (the command line's methods are the registry's rows, src/methods/, each a rule
// of the kernel engine). Checked against the
// closed-form solution of its DEL recurrence on the harmonic oscillator, its order of convergence,
// and Noether's theorem on Kepler.
#include <gtest/gtest.h>

#include <cmath>

#include "app/problem.hpp"
#include "mechint/integrate/run_loop.hpp"
#include "mechint/mechint.hpp"
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

using namespace mechint;
using systems::HarmonicOscillator;

/// Runs the variational integrator of the Simpson rule on `problem`'s model from its start and
/// returns the rows t, q…, energy, Noether momenta at the output times (the recorder's order).
template <class P>
std::vector<std::vector<double>> run(const P& problem, double h, double t_end, double every) {
  using M = typename P::Model;
  VariationalIntegrator vi(DiscreteSystem<M, SimpsonRule>(problem.model), h);
  vi.start_from_velocity(problem.q0, problem.initial_data);
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
  app::Problem<HarmonicOscillator> p(HarmonicOscillator{m, k});
  p.q0 = VecD<1>(0.7);
  p.initial_data = VecD<1>(-0.4);
  p.labels = {{"q"}, {}};
  // The momentum-form start gives q_1 from p0 = m v0; the recurrence then fixes everything else.
  const auto rows = run(p, h, 100.0, 0.0);
  ASSERT_EQ(rows.size(), 2001u);
  const double a = 0.7, b = (rows[1][1] - a * cos_theta) / std::sin(theta);
  for (std::size_t i = 0; i < rows.size(); ++i)
    ASSERT_NEAR(rows[i][1], a * std::cos(i * theta) + b * std::sin(i * theta), 1e-12) << "step " << i;
}

TEST(AddingADiscreteLagrangian, ConvergesAtOrderTwo) {
  const double t_end = 5.0;
  std::vector<double> hs, errors;
  for (int steps : {100, 200, 400, 800}) {
    app::Problem<HarmonicOscillator> p(HarmonicOscillator{1.0, 1.0});
    p.q0 = VecD<1>(1.0);
    p.labels = {{"q"}, {}};
    const double h = t_end / steps;
    const auto rows = run(p, h, t_end, 0.0);
    hs.push_back(h);
    errors.push_back(std::abs(rows.back()[1] - std::cos(t_end)));
  }
  EXPECT_NEAR(convergence_order(hs, errors), 2.0, 0.05);
}

TEST(AddingADiscreteLagrangian, KeepsTheAngularMomentumOfKepler) {
  app::Problem<systems::Kepler> p(systems::Kepler{1.0});
  systems::Kepler::pericentre_start(1.0, 1.0, 0.5, p.q0, p.initial_data);
  p.labels = {{"x", "y"}, {"J"}};
  const auto rows = run(p, 0.05, 200.0, 1.0);
  const double j0 = rows.front()[4];
  for (const auto& r : rows) ASSERT_NEAR(r[4], j0, 1e-13 * std::abs(j0));
  // Energy: bounded oscillation, no drift.
  const double e0 = rows.front()[3];
  for (const auto& r : rows) ASSERT_NEAR(r[3], e0, 1e-2);
}

}  // namespace
