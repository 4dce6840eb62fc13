// DMOC (optimal/dmoc.hpp) checked against independent references: finite differences of its
// constraints and Lagrangian (the exact derivatives it hands Ipopt), the closed-form minimum-energy
// transfer of the harmonic oscillator (controllability Gramian) and its order of convergence, the
// pendulum swing-up against Pontryagin's conditions solved by multiple shooting
// (tests/swing_up_reference.hpp), and re-simulation of the optimal controls with the forced VI.
#include <gtest/gtest.h>

#include <Eigen/LU>

#include <cmath>
#include <iostream>
#include <random>
#include <vector>

#include "mechint/mechint.hpp"
#include "mechint/optimal/dmoc.hpp"
#include "mechint/optimal/ipopt_solver.hpp"
#include "mechint/systems/cart_pole.hpp"
#include "mechint/systems/damped_pendulum.hpp"
#include "forced_oscillator.hpp"
#include "nlp_differences.hpp"
#include "swing_up_reference.hpp"

namespace mechint {
namespace {

using optimal::DmocTranscription;
using optimal::HessianMode;
using optimal::IpoptSettings;
using optimal::OptimalControlProblem;
using systems::CartPole;
using systems::DampedPendulum;

TEST(DmocDerivatives, DampedPendulumMidpointMatchesDifferences) {
  std::mt19937 rng(7);
  OptimalControlProblem<1, 1> problem;
  problem.horizon = 1.0;
  problem.steps = 6;
  problem.q_goal_given << true;
  problem.v_goal_given << true;
  DmocTranscription program(DiscreteSystem<DampedPendulum, MidpointRule>(DampedPendulum{.damping = 0.3}), problem);
  expect_derivatives_match_differences(program, rng);
}

TEST(DmocDerivatives, CartPoleBothRulesMatchDifferences) {
  std::mt19937 rng(11);
  OptimalControlProblem<2, 1> problem;
  problem.horizon = 0.8;
  problem.steps = 5;
  DmocTranscription midpoint(DiscreteSystem<CartPole, MidpointRule>(CartPole{}), problem);
  expect_derivatives_match_differences(midpoint, rng);
  DmocTranscription trapezoid(DiscreteSystem<CartPole, TrapezoidRule>(CartPole{}), problem);
  expect_derivatives_match_differences(trapezoid, rng);
}

// ---- minimum-energy transfer of the harmonic oscillator ----------------------------------------

template <class Rule>
optimal::NlpSolution solve_oscillator_transfer(int steps, HessianMode hessian) {
  OptimalControlProblem<1, 1> problem;
  problem.horizon = 2.0;
  problem.steps = steps;
  problem.q_start << 0.3;
  problem.v_start << -0.2;
  problem.q_goal << 1.0;
  problem.v_goal << 0.5;
  problem.q_goal_given << true;
  problem.v_goal_given << true;
  DmocTranscription program(DiscreteSystem<ForcedOscillator, Rule>(ForcedOscillator{.mass = 1.3, .stiffness = 2.0}),
                            problem);
  return optimal::solve_with_ipopt(program, IpoptSettings{.hessian = hessian, .tolerance = 1e-12});
}

TEST(DmocOscillator, CostConvergesAtOrderTwoToTheGramianOptimum) {
  const ForcedOscillator o{.mass = 1.3, .stiffness = 2.0};
  const double exact = oscillator_minimum_energy(o, 2.0, {0.3, -0.2}, {1.0, 0.5});
  std::vector<double> errors;
  for (int steps : {20, 40, 80, 160}) {
    const auto solution = solve_oscillator_transfer<MidpointRule>(steps, HessianMode::kExact);
    ASSERT_TRUE(solution.converged) << solution.status;
    EXPECT_LT(solution.constraint_violation, 1e-9);
    errors.push_back(std::abs(solution.objective - exact));
  }
  std::cout << "oscillator transfer: exact cost " << exact << ", DMOC errors";
  for (double e : errors) std::cout << " " << e;
  std::cout << "\n";
  for (std::size_t i = 1; i < errors.size(); ++i) {
    const double order = std::log2(errors[i - 1] / errors[i]);
    EXPECT_NEAR(order, 2.0, 0.2) << "N = " << (20 << i) << ", errors " << errors[i - 1] << " -> " << errors[i];
  }
  EXPECT_LT(errors.back() / exact, 1e-3);
}

TEST(DmocOscillator, TrapezoidRuleConvergesToo) {
  const ForcedOscillator o{.mass = 1.3, .stiffness = 2.0};
  const double exact = oscillator_minimum_energy(o, 2.0, {0.3, -0.2}, {1.0, 0.5});
  const double e40 = std::abs(solve_oscillator_transfer<TrapezoidRule>(40, HessianMode::kExact).objective - exact);
  const double e80 = std::abs(solve_oscillator_transfer<TrapezoidRule>(80, HessianMode::kExact).objective - exact);
  EXPECT_NEAR(std::log2(e40 / e80), 2.0, 0.2);
}

TEST(DmocOscillator, LimitedMemoryHessianFindsTheSameOptimum) {
  const auto exact = solve_oscillator_transfer<MidpointRule>(40, HessianMode::kExact);
  const auto lbfgs = solve_oscillator_transfer<MidpointRule>(40, HessianMode::kLimitedMemory);
  ASSERT_TRUE(exact.converged && lbfgs.converged) << exact.status << " / " << lbfgs.status;
  EXPECT_NEAR(lbfgs.objective, exact.objective, 1e-8 * exact.objective);
  EXPECT_LT((lbfgs.x - exact.x).lpNorm<Eigen::Infinity>(), 1e-5);
}

// ---- pendulum swing-up against Pontryagin's conditions -----------------------------------------

struct SwingUp {
  optimal::NlpSolution solution;
  std::vector<double> t_mid, u, theta_mid;
  double h = 0.0;
};

/// DMOC of the minimum-effort swing-up (hanging at rest to upright at rest in T = 3 s, m = l = 1,
/// g = 9.81, no friction) with N steps of the midpoint rule.
SwingUp dmoc_swing_up(int steps) {
  OptimalControlProblem<1, 1> problem;
  problem.horizon = 3.0;
  problem.steps = steps;
  problem.q_goal << M_PI;
  problem.q_goal_given << true;
  problem.v_goal_given << true;
  using System = DiscreteSystem<DampedPendulum, MidpointRule>;
  DmocTranscription program(System(DampedPendulum{.damping = 0.0}), problem);
  SwingUp out;
  out.solution = optimal::solve_with_ipopt(program, IpoptSettings{.tolerance = 1e-12});
  out.h = program.step();
  for (int k = 0; k < steps; ++k) {
    out.t_mid.push_back((k + 0.5) * out.h);
    out.u.push_back(program.u_at(out.solution.x, k)[0]);
    out.theta_mid.push_back(0.5 * (program.q_at(out.solution.x, k)[0] + program.q_at(out.solution.x, k + 1)[0]));
  }
  return out;
}

TEST(DmocPendulum, SwingUpCostConvergesToThePontryaginReference) {
  // Independent reference: Pontryagin's conditions solved by multiple shooting with RKF78.
  const mechint::testing::PendulumSwingUp reference_problem{};
  const auto reference = mechint::testing::solve_swing_up(reference_problem);
  ASSERT_TRUE(reference.converged);
  std::vector<double> errors;
  for (int steps : {40, 80, 160, 320}) {
    const SwingUp d = dmoc_swing_up(steps);
    ASSERT_TRUE(d.solution.converged) << d.solution.status;
    errors.push_back(std::abs(d.solution.objective - reference.cost));
    if (steps == 80) {
      // DMOC found the reference's extremal: shooting from DMOC's own (θ, u) lands on the same cost.
      const auto nearest = mechint::testing::solve_swing_up(reference_problem, d.t_mid, d.u, d.theta_mid);
      ASSERT_TRUE(nearest.converged);
      EXPECT_NEAR(nearest.cost, reference.cost, 1e-9 * reference.cost);
    }
  }
  std::cout << "swing-up: reference cost " << reference.cost << ", DMOC errors";
  for (double e : errors) std::cout << " " << e;
  std::cout << "\n";
  for (std::size_t i = 1; i < errors.size(); ++i) {
    EXPECT_LT(errors[i], errors[i - 1]);
    EXPECT_NEAR(std::log2(errors[i - 1] / errors[i]), 2.0, 0.25) << "N = " << (40 << i);
  }
  EXPECT_LT(errors.back() / reference.cost, 1e-3);
}

TEST(DmocPendulum, OptimalControlsReplayedByTheForcedViMeetTheEndConditions) {
  const int steps = 100;
  const SwingUp d = dmoc_swing_up(steps);
  ASSERT_TRUE(d.solution.converged);
  VariationalIntegrator integrator(DiscreteSystem<DampedPendulum, MidpointRule>(DampedPendulum{.damping = 0.0}), d.h);
  integrator.start_from_velocity(VecD<1>(0.0), VecD<1>(0.0));
  for (int k = 0; k < steps; ++k) {
    integrator.set_control(VecD<1>(d.u[k]));
    integrator.step();
  }
  // Upright at rest: θ = π, and the forced discrete momentum p_N = m l² θ̇ = 0.
  EXPECT_NEAR(integrator.q()[0], M_PI, 1e-9);
  EXPECT_NEAR(integrator.p()[0], 0.0, 1e-8);
}

TEST(DmocPendulum, BoundsOnTheTorqueAreRespectedAndCostMore) {
  OptimalControlProblem<1, 1> problem;
  problem.horizon = 3.0;
  problem.steps = 100;
  problem.q_goal << M_PI;
  problem.q_goal_given << true;
  problem.v_goal_given << true;
  problem.u_lower << -5.3;
  problem.u_upper << 5.3;
  using System = DiscreteSystem<DampedPendulum, MidpointRule>;
  DmocTranscription bounded(System(DampedPendulum{.damping = 0.0}), problem);
  const auto with_bounds = optimal::solve_with_ipopt(bounded, IpoptSettings{.tolerance = 1e-10});
  ASSERT_TRUE(with_bounds.converged) << with_bounds.status;
  double peak = 0.0;
  for (int k = 0; k < problem.steps; ++k) peak = std::max(peak, std::abs(bounded.u_at(with_bounds.x, k)[0]));
  EXPECT_LE(peak, 5.3 + 1e-8);
  EXPECT_GT(peak, 5.3 - 1e-6);  // the bound is active (the free optimum peaks at 5.8)
  EXPECT_GT(with_bounds.objective, dmoc_swing_up(100).solution.objective);
}

}  // namespace
}  // namespace mechint
