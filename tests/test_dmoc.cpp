// DMOC of the pendulum on the kernels (kernel/kernel_dmoc.hpp), solved by Ipopt and checked against
// independent references: central differences of its constraints and Lagrangian (the exact
// derivatives it hands Ipopt), the swing-up against Pontryagin's conditions solved by multiple
// shooting (tests/swing_up_reference.hpp), re-simulation of the optimal controls with the forced
// variational integrator on the kernels (kernel/kernel_variational_integrator.hpp), and bounds on the
// torque. The oscillator's transfer against its Gramian optimum (order 2, both rules, L-BFGS) is in
// test_kernel_dmoc.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <memory>
#include <random>
#include <vector>

#include "kernel/kernel_dmoc.hpp"
#include "kernel/kernel_variational_integrator.hpp"
#include "kernel/model_adapter.hpp"  // the built-ins' kernels, compiled in the library
#include "mechint/optimal/ipopt_solver.hpp"
#include "mechint/systems/damped_pendulum.hpp"
#include "nlp_differences.hpp"
#include "swing_up_reference.hpp"

namespace mechint {
namespace {

using kernel::KernelDmocTranscription;
using optimal::DmocProblem;
using optimal::IpoptSettings;
using systems::DampedPendulum;

IpoptSettings with_tolerance(double tolerance) {
  IpoptSettings settings;
  settings.tolerance = tolerance;
  return settings;
}

std::shared_ptr<const kernel::KernelModel> pendulum_kernels(double damping) {
  return kernel::ModelAdapter<DampedPendulum>::kernels(DampedPendulum{.damping = damping});
}

TEST(DmocDerivatives, DampedPendulumMidpointMatchesDifferences) {
  std::mt19937 rng(7);
  DmocProblem problem(1, 1);
  problem.horizon = 1.0;
  problem.steps = 6;
  problem.q_goal_given = {true};
  problem.v_goal_given = {true};
  const auto kernels = pendulum_kernels(0.3);
  const KernelDmocTranscription program(*kernels, kernel::Rule::kMidpoint, problem);
  expect_derivatives_match_differences(program, rng);
}

// ---- pendulum swing-up against Pontryagin's conditions -----------------------------------------

/// The minimum-effort swing-up: hanging at rest to upright at rest in T = 3 s, m = l = 1, g = 9.81,
/// no friction; optionally a bound on the torque.
DmocProblem swing_up_problem(int steps, double torque_bound = optimal::kUnbounded) {
  DmocProblem problem(1, 1);
  problem.horizon = 3.0;
  problem.steps = steps;
  problem.q_goal << M_PI;
  problem.q_goal_given = {true};
  problem.v_goal_given = {true};
  problem.u_lower << -torque_bound;
  problem.u_upper << torque_bound;
  return problem;
}

struct SwingUp {
  optimal::NlpSolution solution;
  std::vector<double> t_mid, u, theta_mid;
  double h = 0.0;
};

/// DMOC of the swing-up with N steps of the midpoint rule.
SwingUp dmoc_swing_up(int steps) {
  const auto kernels = pendulum_kernels(0.0);
  const KernelDmocTranscription program(*kernels, kernel::Rule::kMidpoint, swing_up_problem(steps));
  SwingUp out;
  out.solution = optimal::solve_with_ipopt(program, with_tolerance(1e-12));
  out.h = program.step();
  const Eigen::VectorXd& x = out.solution.x;
  for (int k = 0; k < steps; ++k) {
    out.t_mid.push_back((k + 0.5) * out.h);
    out.u.push_back(x[program.u_index(k)]);
    out.theta_mid.push_back(0.5 * (x[program.q_index(k)] + x[program.q_index(k + 1)]));
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
  // The forced midpoint VI on the kernels, each step under the program's control u_k.
  const auto kernels = pendulum_kernels(0.0);
  kernel::KernelVariationalIntegrator integrator(*kernels, kernel::Rule::kMidpoint, d.h);
  integrator.start_from_velocity(kernel::Vector::Zero(1), kernel::Vector::Zero(1));
  for (int k = 0; k < steps; ++k) {
    integrator.set_control(kernel::Vector::Constant(1, d.u[k]));
    integrator.step();
  }
  // Upright at rest: θ = π, and the forced discrete momentum p_N = m l² θ̇ = 0.
  EXPECT_NEAR(integrator.q()[0], M_PI, 1e-9);
  EXPECT_NEAR(integrator.p()[0], 0.0, 1e-8);
}

TEST(DmocPendulum, BoundsOnTheTorqueAreRespectedAndCostMore) {
  const auto kernels = pendulum_kernels(0.0);
  const DmocProblem problem = swing_up_problem(100, 5.3);
  const KernelDmocTranscription bounded(*kernels, kernel::Rule::kMidpoint, problem);
  const auto with_bounds = optimal::solve_with_ipopt(bounded, with_tolerance(1e-10));
  ASSERT_TRUE(with_bounds.converged) << with_bounds.status;
  double peak = 0.0;
  for (int k = 0; k < problem.steps; ++k) peak = std::max(peak, std::abs(with_bounds.x[bounded.u_index(k)]));
  EXPECT_LE(peak, 5.3 + 1e-8);
  EXPECT_GT(peak, 5.3 - 1e-6);  // the bound is active (the free optimum peaks at 5.8)
  EXPECT_GT(with_bounds.objective, dmoc_swing_up(100).solution.objective);
}

}  // namespace
}  // namespace mechint
