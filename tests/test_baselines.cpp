// Runge–Kutta baselines on the Euler–Lagrange ODE derived from L by AD: the closed-form Kepler
// orbit and harmonic oscillator, the order of RK4, tolerance proportionality of the adaptive
// methods, and the three-body orbit against equations of motion written out by hand.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <vector>

#include <boost/numeric/odeint.hpp>

#include "mechint/analysis/error_measures.hpp"
#include "mechint/integrate/odeint_baselines.hpp"
#include "mechint/systems/harmonic_oscillator.hpp"
#include "mechint/systems/kepler.hpp"
#include "mechint/systems/pendulum_chain.hpp"
#include "mechint/systems/three_body.hpp"

namespace mechint {
namespace {

using systems::HarmonicOscillator;
using systems::Kepler;
using systems::ThreeBody;

constexpr double kA = 1.0, kE = 0.5;
const double kPeriod = 2.0 * M_PI;

/// Position error after one Kepler period (eccentricity 0.5) for a method, step and tolerances.
double kepler_error(RungeKuttaMethod method, double h, RungeKuttaTolerances tol, long* steps = nullptr) {
  EulerLagrangeOde ode{Kepler{}};
  VecD<2> q0, v0;
  Kepler::pericentre_start(1.0, kA, kE, q0, v0);
  auto x = decltype(ode)::pack(q0, v0);
  const long n = integrate_runge_kutta(ode, method, x, 0.0, h, kPeriod, 1, tol, [](const auto&, double) {});
  if (steps) *steps = n;
  return (decltype(ode)::position(x) - Kepler::exact_position(1.0, kA, kE, kPeriod)).norm();
}

TEST(Baselines, EulerLagrangeAccelerationOfKeplerIsNewtonsLaw) {
  const EulerLagrangeOde ode{Kepler{}};
  const VecD<2> q(0.3, -1.2), v(0.7, 0.1);
  const VecD<2> expected = -q / std::pow(q.norm(), 3);
  EXPECT_NEAR((ode.acceleration(q, v) - expected).norm(), 0.0, 1e-14);
}

TEST(Baselines, Rk4IsFourthOrderOnTheOscillator) {
  // x(t) = cos t for m = k = 1, x(0) = 1, v(0) = 0.
  std::vector<double> hs, errors;
  for (int n : {100, 200, 400, 800}) {
    EulerLagrangeOde ode{HarmonicOscillator{}};
    auto x = decltype(ode)::pack(VecD<1>(1.0), VecD<1>(0.0));
    const double h = 10.0 / n;
    integrate_runge_kutta(ode, RungeKuttaMethod::kRk4, x, 0.0, h, 10.0, 1, {}, [](const auto&, double) {});
    hs.push_back(h);
    errors.push_back(std::abs(x[0] - std::cos(10.0)));
  }
  EXPECT_NEAR(convergence_order(hs, errors), 4.0, 0.1);
}

TEST(Baselines, Rk4IsFourthOrderOnKepler) {
  std::vector<double> hs, errors;
  for (int n : {400, 800, 1600}) {
    hs.push_back(kPeriod / n);
    errors.push_back(kepler_error(RungeKuttaMethod::kRk4, kPeriod / n, {}));
  }
  EXPECT_NEAR(convergence_order(hs, errors), 4.0, 0.2);
}

TEST(Baselines, AdaptiveMethodsMeetTheirTolerance) {
  // The controllers bound the local error of each accepted step by the tolerance, so the global
  // error over one period of a moderately eccentric orbit is at most the sum of the local ones
  // (steps × tol) times a modest growth factor of the flow; and it falls with the tolerance.
  for (RungeKuttaMethod m : {RungeKuttaMethod::kDopri5, RungeKuttaMethod::kRk78}) {
    double previous = 1.0;
    for (double tol : {1e-6, 1e-8, 1e-10}) {
      long steps = 0;
      const double err = kepler_error(m, 1e-3, {tol, tol}, &steps);
      EXPECT_LT(err, 10.0 * static_cast<double>(steps) * tol) << "tolerance " << tol;
      EXPECT_LT(err, 0.2 * previous) << "tolerance " << tol;
      previous = err;
    }
  }
  EXPECT_LT(kepler_error(RungeKuttaMethod::kRk78, 1e-3, {1e-13, 1e-13}), 1e-10);
}

TEST(Baselines, AdaptiveMethodsTakeFewerStepsForLooserTolerances) {
  long tight = 0, loose = 0;
  kepler_error(RungeKuttaMethod::kDopri5, 1e-3, {1e-10, 1e-10}, &tight);
  kepler_error(RungeKuttaMethod::kDopri5, 1e-3, {1e-6, 1e-6}, &loose);
  EXPECT_LT(loose, tight);
}

TEST(Baselines, ThreeBodyOrbitAgreesWithHandWrittenEquations) {
  const ThreeBody model;
  const double t_end = 20.0;
  // Independent reference: Bulirsch–Stoer on the hand-written equations at a tight tolerance.
  std::array<double, 4> ref = {0.5, 0.0, 0.0, 0.9};
  namespace odeint = boost::numeric::odeint;
  odeint::bulirsch_stoer<std::array<double, 4>> bs(1e-14, 1e-14);
  odeint::integrate_adaptive(bs, systems::ThreeBodyEquationsOfMotion{model.mu}, ref, 0.0, t_end, 1e-3);

  EulerLagrangeOde ode(model);
  for (auto [method, tol, bound] : {std::tuple{RungeKuttaMethod::kDopri5, 1e-10, 1e-7},
                                    std::tuple{RungeKuttaMethod::kRk78, 1e-12, 1e-9}}) {
    auto x = decltype(ode)::pack(VecD<2>(0.5, 0.0), VecD<2>(0.0, 0.9));
    integrate_runge_kutta(ode, method, x, 0.0, 1e-3, t_end, 1, {tol, tol}, [](const auto&, double) {});
    double err = 0.0;
    for (int i = 0; i < 4; ++i) err = std::max(err, std::abs(x[i] - ref[i]));
    EXPECT_LT(err, bound);
  }
  // RK4 at h = 1e-3: error O(h^4) times the orbit's growth factor.
  auto x = decltype(ode)::pack(VecD<2>(0.5, 0.0), VecD<2>(0.0, 0.9));
  integrate_runge_kutta(ode, RungeKuttaMethod::kRk4, x, 0.0, 1e-3, t_end, 1, {}, [](const auto&, double) {});
  EXPECT_LT(std::abs(x[0] - ref[0]) + std::abs(x[1] - ref[1]), 1e-8);
}

/// The 3-link chain with its Lagrangian only, hiding the hand-written derivatives.
struct ChainWithoutDerivatives {
  static constexpr int kDim = 3, kNumConstraints = 0, kNumSymmetries = 0;
  systems::PendulumChain<3> chain;
  template <class T>
  T lagrangian(const Vec<T, 3>& q, const Vec<T, 3>& v) const {
    return chain.template lagrangian<T>(q, v);
  }
};

TEST(Baselines, HandWrittenLagrangianDerivativesGiveTheSameAcceleration) {
  // The chain supplies its own L derivatives; the ODE must agree with the AD path through a model
  // that hides them.
  const VecD<3> q(0.3, -0.2, 0.5), v(0.1, 0.4, -0.3);
  const EulerLagrangeOde hand{systems::PendulumChain<3>{}};
  const EulerLagrangeOde ad{ChainWithoutDerivatives{}};
  EXPECT_LT((hand.acceleration(q, v) - ad.acceleration(q, v)).norm(), 1e-12);
}

}  // namespace
}  // namespace mechint
