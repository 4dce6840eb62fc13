// Harmonic oscillator on the kernel engine (the AD kernels of systems::HarmonicOscillator, compiled
// once in its system's source, under the variational integrator the command line runs): the discrete
// trajectories of the midpoint and trapezoid VIs are known in closed form (a linear recurrence with
// the discrete frequency below), so the integrator must match them to round-off; and both converge to
// the exact solution at order 2.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "kernel/kernel_legendre.hpp"
#include "kernel/kernel_variational_integrator.hpp"
#include "kernel/model_adapter.hpp"
#include "mechint/analysis/error_measures.hpp"
#include "mechint/systems/harmonic_oscillator.hpp"

namespace mechint {
namespace {

using kernel::KernelVariationalIntegrator;
using kernel::Vector;
using systems::HarmonicOscillator;

Vector scalar(double x) { return Vector::Constant(1, x); }

std::shared_ptr<const kernel::KernelModel> kernels_of(const HarmonicOscillator& model) {
  return kernel::ModelAdapter<HarmonicOscillator>::kernels_for_runs(model);
}

// q_k = A cos(k ω_d h) + B sin(k ω_d h) solves the DEL recurrence (see the derivation in
// docs/conventions.md): midpoint: cos ω_d h = (1 − (ωh/2)²)/(1 + (ωh/2)²); trapezoid: 1 − (ωh)²/2.
void expect_matches_discrete_closed_form(kernel::Rule rule, double cos_wdh, double h) {
  const auto kernels = kernels_of(HarmonicOscillator{2.0, 3.0});
  KernelVariationalIntegrator integ(*kernels, rule, h, {}, DelForm::kPosition);
  const double q_prev = 0.3, q0 = 0.7;
  integ.start_from_two_points(scalar(q_prev), scalar(q0));
  const double wdh = std::acos(cos_wdh);
  // A = q0, and q_{-1} = A cos(wdh) − B sin(wdh).
  const double a = q0, b = (a * cos_wdh - q_prev) / std::sin(wdh);
  for (int k = 1; k <= 2000; ++k) {
    integ.step();
    const double expected = a * std::cos(k * wdh) + b * std::sin(k * wdh);
    ASSERT_NEAR(integ.q()[0], expected, 1e-12) << "step " << k;
  }
}

TEST(HarmonicOscillator, MidpointMatchesItsDiscreteClosedForm) {
  const double h = 0.3, w = std::sqrt(3.0 / 2.0), x = w * h / 2;
  expect_matches_discrete_closed_form(kernel::Rule::kMidpoint, (1 - x * x) / (1 + x * x), h);
}

TEST(HarmonicOscillator, TrapezoidMatchesStormerVerletRecurrence) {
  const double h = 0.3, w = std::sqrt(3.0 / 2.0);
  expect_matches_discrete_closed_form(kernel::Rule::kTrapezoid, 1 - (w * h) * (w * h) / 2, h);
}

TEST(HarmonicOscillator, ConvergesToExactSolutionAtOrderTwo) {
  const auto kernels = kernels_of(HarmonicOscillator{1.0, 4.0});
  const double w = 2.0, q0 = 1.0, v0 = 0.5, t_end = 10.0;
  std::vector<double> hs, errs;
  for (int steps : {200, 400, 800, 1600}) {
    KernelVariationalIntegrator integ(*kernels, kernel::Rule::kMidpoint, t_end / steps);
    integ.start_from_velocity(scalar(q0), scalar(v0));
    for (int k = 0; k < steps; ++k) integ.step();
    hs.push_back(t_end / steps);
    errs.push_back(std::abs(integ.q()[0] - (q0 * std::cos(w * t_end) + v0 / w * std::sin(w * t_end))));
  }
  EXPECT_NEAR(convergence_order(hs, errs), 2.0, 0.05);
}

TEST(HarmonicOscillator, EnergyOfTheStartIsExact) {
  // The kernels' energy and inverse Legendre transform (the rows' energy and velocity columns).
  const auto kernels = kernels_of(HarmonicOscillator{2.0, 3.0});
  EXPECT_DOUBLE_EQ(kernel::kernel_energy(*kernels, scalar(0.5), scalar(1.5)), 0.5 * 2.0 * 2.25 + 0.5 * 3.0 * 0.25);
  EXPECT_NEAR(kernel::tangent_velocity(*kernels, scalar(0.5), scalar(3.0), scalar(0.0))[0], 1.5, 1e-15);
}

}  // namespace
}  // namespace mechint
