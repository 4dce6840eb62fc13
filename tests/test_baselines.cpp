// Runge–Kutta baselines (rk4, dopri5, rk78 on the Euler–Lagrange ODE of a model's kernels, as
// `mechint run --method rk4|dopri5|rk78` makes them): the closed-form Kepler orbit and harmonic
// oscillator, the order of RK4, tolerance proportionality of the adaptive methods, the three-body
// orbit against equations of motion written out by hand, and hand-written derivatives of L against AD.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <memory>
#include <vector>

#include <boost/numeric/odeint.hpp>

#include "kernel/chain_kernels.hpp"
#include "kernel/kernel_runge_kutta.hpp"
#include "kernel/model_adapter.hpp"
#include "mechint/analysis/error_measures.hpp"
#include "mechint/model/lagrangian_calculus.hpp"
#include "mechint/systems/harmonic_oscillator.hpp"
#include "mechint/systems/kepler.hpp"
#include "mechint/systems/pendulum_chain.hpp"
#include "mechint/systems/three_body.hpp"

namespace mechint {
namespace {

using kernel::KernelModel;
using kernel::Vector;
using systems::HarmonicOscillator;
using systems::Kepler;
using systems::ThreeBody;

constexpr double kA = 1.0, kE = 0.5;
const double kPeriod = 2.0 * M_PI;

/// The kernels a built-in's runs use (compiled once in the library).
template <class M>
const KernelModel& kernels_of() {
  static const std::shared_ptr<const KernelModel> kernels = kernel::ModelAdapter<M>::kernels_for_runs(M{});
  return *kernels;
}

/// The state (q, v) at t_end from (q0, v0) at 0 by `method` on the kernels' Euler–Lagrange ODE, the
/// stepper made as src/methods/runge_kutta_methods.cpp makes it: rk4 at the fixed step h, the adaptive methods from
/// the first step h under `tol`, their last step clipped at t_end. `steps`: the steps taken (accepted
/// ones when adaptive).
Vector run_baseline(const KernelModel& model, RungeKuttaMethod method, const Vector& q0, const Vector& v0, double h,
                    double t_end, RungeKuttaTolerances tol, long* steps = nullptr) {
  return kernel::with_kernel_runge_kutta(kernel::KernelEulerLagrangeOde(model, nullptr), method, h, tol, [&](auto& rk) {
    rk.start_from_velocity(q0, v0);
    if constexpr (requires { rk.step_toward(t_end); }) {
      while (rk.time() < t_end) rk.step_toward(t_end);
    } else {
      for (long k = std::lround(t_end / h); k > 0; --k) rk.step();
    }
    if (steps) *steps = rk.step_index();
    return Vector(Eigen::Map<const Vector>(rk.state().data(), static_cast<Eigen::Index>(rk.state().size())));
  });
}

/// Position error after one Kepler period (eccentricity 0.5) for a method, step and tolerances.
double kepler_error(RungeKuttaMethod method, double h, RungeKuttaTolerances tol, long* steps = nullptr) {
  VecD<2> q0, v0;
  Kepler::pericentre_start(1.0, kA, kE, q0, v0);
  const Vector x = run_baseline(kernels_of<Kepler>(), method, Vector(q0), Vector(v0), h, kPeriod, tol, steps);
  return (VecD<2>(x.head<2>()) - Kepler::exact_position(1.0, kA, kE, kPeriod)).norm();
}

/// q̈ at (q, v) from the right-hand side of the kernels' Euler–Lagrange ODE.
Vector kernel_acceleration(const KernelModel& model, const Vector& q, const Vector& v) {
  const kernel::KernelEulerLagrangeOde ode(model, nullptr);
  const auto n = q.size();
  std::vector<double> x(2 * n), dxdt(2 * n);
  Eigen::Map<Vector>(x.data(), n) = q;
  Eigen::Map<Vector>(x.data() + n, n) = v;
  ode(x, dxdt, 0.0);
  return Eigen::Map<const Vector>(dxdt.data() + n, n);
}

TEST(Baselines, EulerLagrangeAccelerationOfKeplerIsNewtonsLaw) {
  const VecD<2> q(0.3, -1.2), v(0.7, 0.1);
  const VecD<2> expected = -q / std::pow(q.norm(), 3);
  EXPECT_NEAR((VecD<2>(kernel_acceleration(kernels_of<Kepler>(), Vector(q), Vector(v))) - expected).norm(), 0.0,
              1e-14);
}

TEST(Baselines, Rk4IsFourthOrderOnTheOscillator) {
  // x(t) = cos t for m = k = 1, x(0) = 1, v(0) = 0.
  std::vector<double> hs, errors;
  for (int n : {100, 200, 400, 800}) {
    const double h = 10.0 / n;
    const Vector x = run_baseline(kernels_of<HarmonicOscillator>(), RungeKuttaMethod::kRk4, Vector::Constant(1, 1.0),
                                  Vector::Zero(1), h, 10.0, {});
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

  const Vector q0 = Vector(VecD<2>(0.5, 0.0)), v0 = Vector(VecD<2>(0.0, 0.9));
  for (auto [method, tol, bound] : {std::tuple{RungeKuttaMethod::kDopri5, 1e-10, 1e-7},
                                    std::tuple{RungeKuttaMethod::kRk78, 1e-12, 1e-9}}) {
    const Vector x = run_baseline(kernels_of<ThreeBody>(), method, q0, v0, 1e-3, t_end, {tol, tol});
    double err = 0.0;
    for (int i = 0; i < 4; ++i) err = std::max(err, std::abs(x[i] - ref[i]));
    EXPECT_LT(err, bound);
  }
  // RK4 at h = 1e-3: error O(h^4) times the orbit's growth factor.
  const Vector x = run_baseline(kernels_of<ThreeBody>(), RungeKuttaMethod::kRk4, q0, v0, 1e-3, t_end, {});
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

/// q̈ from L_vv q̈ = L_q − L_vq q̇ with the blocks of the model calculus: the model's own derivatives
/// where it has them, else nested AD of L (what the kernels of a model without them evaluate).
template <class M>
VecD<3> calculus_acceleration(const M& model, const VecD<3>& q, const VecD<3>& v) {
  VecD<3> l_q;
  Mat<3, 3> l_qv, l_vv;
  lagrangian_velocity_hessians(model, q, v, l_q, l_qv, l_vv);
  return l_vv.partialPivLu().solve(l_q - l_qv.transpose() * v);
}

TEST(Baselines, HandWrittenLagrangianDerivativesGiveTheSameAcceleration) {
  // The chain supplies its own L derivatives: the fixed-size model's and the kernel engine's
  // hand-derived kernels (what `mechint run pendulum-chain` integrates); the accelerations must agree
  // with the AD path through a model that hides them.
  const VecD<3> q(0.3, -0.2, 0.5), v(0.1, 0.4, -0.3);
  const systems::PendulumChain<3> chain;
  const VecD<3> ad = calculus_acceleration(ChainWithoutDerivatives{}, q, v);
  EXPECT_LT((calculus_acceleration(chain, q, v) - ad).norm(), 1e-12);
  const KernelModel kernels = kernel::pendulum_chain_model(3, chain.mass, chain.length, chain.gravity);
  EXPECT_LT((VecD<3>(kernel_acceleration(kernels, Vector(q), Vector(v))) - ad).norm(), 1e-12);
}

}  // namespace
}  // namespace mechint
