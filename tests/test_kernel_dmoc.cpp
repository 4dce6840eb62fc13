// DMOC on the kernels (kernel/kernel_dmoc.hpp), the program `mechint optimize` solves for every
// system, checked three ways: against the fixed-size transcription (optimal/dmoc.hpp: a second
// formulation, differentiating each rule's discrete Lagrangian by nested AD where the kernel one
// composes L's third derivatives at the rule's quadrature points) — constraints, Jacobian, Hessian
// of the Lagrangian and node energies at random points, for the four built-ins with controls, every
// rule on one of them at least; against central differences of its own constraints; and, solved by Ipopt, against the
// closed-form minimum-energy transfer of the harmonic oscillator, converging at order 2. The Galerkin
// rules (interior control points as unknowns): central differences, the one-stage Gauss rule against
// the midpoint rule, and the order of the motion: the optimal controls of the oscillator applied to
// its exact flow miss the goal by O(h^order) of the rule.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "kernel/kernel_dmoc.hpp"
#include "kernel/builtin_model_kernels.hpp"  // the built-ins' kernels, linked to
#include "kernel/model_adapter.txx"  // the kernels of ForcedOscillator, a model of the tests alone
#include "mechint/optimal/dmoc.hpp"
#include "mechint/optimal/ipopt_solver.hpp"
#include "mechint/systems/acrobot.hpp"
#include "mechint/systems/cart_pole.hpp"
#include "mechint/systems/damped_pendulum.hpp"
#include "mechint/systems/low_thrust_spacecraft.hpp"
#include "forced_oscillator.hpp"
#include "nlp_differences.hpp"

namespace mechint {
namespace {

using kernel::KernelDmocTranscription;
using optimal::DmocProblem;
using optimal::NonlinearProgram;
using optimal::OptimalControlProblem;

Eigen::MatrixXd dense_jacobian(const NonlinearProgram& program, const Eigen::VectorXd& x) {
  const auto& entries = program.jacobian_structure();
  Eigen::VectorXd values(entries.size());
  program.constraint_jacobian(x, values);
  Eigen::MatrixXd dense = Eigen::MatrixXd::Zero(program.num_constraints(), program.num_variables());
  for (std::size_t e = 0; e < entries.size(); ++e) dense(entries[e].row, entries[e].col) += values[e];
  return dense;
}

/// The lower triangle of σ∇²f + Σλ∇²g, dense.
Eigen::MatrixXd dense_hessian(const NonlinearProgram& program, const Eigen::VectorXd& x, double sigma,
                              const Eigen::VectorXd& lambda) {
  const auto& entries = program.hessian_structure();
  Eigen::VectorXd values(entries.size());
  program.lagrangian_hessian(x, sigma, lambda, values);
  Eigen::MatrixXd dense = Eigen::MatrixXd::Zero(program.num_variables(), program.num_variables());
  for (std::size_t e = 0; e < entries.size(); ++e) {
    EXPECT_GE(entries[e].row, entries[e].col);
    dense(entries[e].row, entries[e].col) += values[e];
  }
  return dense;
}

double relative(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) { return (a - b).norm() / (1.0 + b.norm()); }

/// The kernel program of `model` under `rule` and the fixed-size one of `Rule` agree at three
/// random points near the interpolation guess: the same numbers up to the order of the arithmetic.
template <class Rule, class Model, int n, int m>
void expect_same_program(const Model& model, kernel::Rule rule, const OptimalControlProblem<n, m>& problem,
                         std::mt19937& rng) {
  SCOPED_TRACE(std::string(Rule::kName));
  const optimal::DmocTranscription fixed(DiscreteSystem<Model, Rule>(model), problem);
  const auto kernels = kernel::ModelAdapter<Model>::kernels_for_runs(model);
  const KernelDmocTranscription program(*kernels, rule, optimal::runtime_problem(problem));
  ASSERT_EQ(program.num_variables(), fixed.num_variables());
  ASSERT_EQ(program.num_constraints(), fixed.num_constraints());
  const int nv = fixed.num_variables(), nc = fixed.num_constraints();
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  Eigen::VectorXd lower(nv), upper(nv), kernel_lower(nv), kernel_upper(nv);
  fixed.variable_bounds(lower, upper);
  program.variable_bounds(kernel_lower, kernel_upper);
  EXPECT_EQ(kernel_lower, lower);
  EXPECT_EQ(kernel_upper, upper);
  Eigen::VectorXd guess(nv), kernel_guess(nv);
  fixed.initial_point(guess);
  program.initial_point(kernel_guess);
  EXPECT_EQ(kernel_guess, guess);
  for (int trial = 0; trial < 3; ++trial) {
    Eigen::VectorXd x = guess, lambda(nc);
    for (int i = 0; i < nv; ++i) x[i] += 0.2 * uniform(rng);
    for (int i = 0; i < nc; ++i) lambda[i] = uniform(rng);
    const double sigma = 0.5 + 0.5 * uniform(rng);
    EXPECT_NEAR(program.objective(x), fixed.objective(x), 1e-14 * (1.0 + std::abs(fixed.objective(x))));
    Eigen::VectorXd c(nc), kernel_c(nc);
    fixed.constraints(x, c);
    program.constraints(x, kernel_c);
    EXPECT_LT(relative(kernel_c, c), 1e-13) << "constraints";
    EXPECT_LT(relative(dense_jacobian(program, x), dense_jacobian(fixed, x)), 1e-13) << "Jacobian";
    EXPECT_LT(relative(dense_hessian(program, x, sigma, lambda), dense_hessian(fixed, x, sigma, lambda)), 1e-12)
        << "Hessian of the Lagrangian";
    const std::vector<double> e = fixed.energies(x), kernel_e = program.energies(x);
    ASSERT_EQ(kernel_e.size(), e.size());
    for (std::size_t k = 0; k < e.size(); ++k) EXPECT_NEAR(kernel_e[k], e[k], 1e-10 * (1.0 + std::abs(e[k]))) << k;
  }
}

// One rule per model, every rule on some model: each fixed-size program is one more instantiation
// of its nested AD (3–4 s of compile time), so the pairs are spread rather than multiplied.
TEST(KernelDmoc, CartPoleMatchesTheFixedSizeTranscription) {
  std::mt19937 rng(3);
  OptimalControlProblem<2, 1> problem;
  problem.horizon = 0.8;
  problem.steps = 5;
  problem.q_goal << 0.4, 3.0;
  problem.q_goal_given << true, true;
  problem.v_goal_given << true, false;
  problem.u_lower << -20.0;
  const systems::CartPole model{};
  expect_same_program<MidpointRule>(model, kernel::Rule::kMidpoint, problem, rng);
}

TEST(KernelDmoc, AcrobotMatchesTheFixedSizeTranscription) {
  std::mt19937 rng(5);
  OptimalControlProblem<2, 1> problem;
  problem.horizon = 1.5;
  problem.steps = 6;
  problem.q_start << -1.4, 0.3;
  problem.q_goal << 1.2, -0.5;
  problem.q_goal_given << true, true;
  problem.effort = 0.3;
  const systems::Acrobot model{};
  expect_same_program<TrapezoidRule>(model, kernel::Rule::kTrapezoid, problem, rng);
}

TEST(KernelDmoc, LowThrustSpacecraftWithTwoControlsMatchesTheFixedSizeTranscription) {
  std::mt19937 rng(9);
  OptimalControlProblem<2, 2> problem;
  problem.horizon = 3.0;
  problem.steps = 5;
  problem.q_start << 1.0, 0.0;
  problem.v_start << 0.0, 1.0;
  problem.q_goal << 1.3, 2.5;
  problem.q_goal_given << true, false;
  const systems::LowThrustSpacecraft model{};
  expect_same_program<MidpointRule>(model, kernel::Rule::kMidpoint, problem, rng);
}

TEST(KernelDmoc, DampedPendulumMatchesTheFixedSizeTranscription) {
  std::mt19937 rng(13);
  OptimalControlProblem<1, 1> problem;
  problem.horizon = 2.0;
  problem.steps = 7;
  problem.q_goal << 3.0;
  problem.q_goal_given << true;
  problem.v_goal_given << true;
  const systems::DampedPendulum model{.damping = 0.3};
  expect_same_program<FirstOrderRule>(model, kernel::Rule::kFirstOrder, problem, rng);
  expect_same_program<TrapezoidRule>(model, kernel::Rule::kTrapezoid, problem, rng);
}

TEST(KernelDmoc, DerivativesMatchCentralDifferences) {
  std::mt19937 rng(17);
  DmocProblem problem(2, 1);
  problem.horizon = 0.8;
  problem.steps = 4;
  const auto kernels = kernel::ModelAdapter<systems::CartPole>::kernels(systems::CartPole{});
  const std::pair<const char*, kernel::DmocRule> rules[] = {
      {"midpoint", kernel::dmoc_rule(kernel::Rule::kMidpoint)},
      {"trapezoid", kernel::dmoc_rule(kernel::Rule::kTrapezoid)},
      {"first order", kernel::dmoc_rule(kernel::Rule::kFirstOrder)},
      {"gauss4", kernel::dmoc_rule(kernel::gauss_tableau(2))},  // one interior point a step
      {"gauss6", kernel::dmoc_rule(kernel::gauss_tableau(3))},  // two
      {"lobatto4", kernel::dmoc_rule(kernel::lobatto_tableau(3))},
  };
  for (const auto& [name, rule] : rules) {
    SCOPED_TRACE(name);
    const KernelDmocTranscription program(*kernels, rule, problem);
    // Interior points of 2 coordinates on every step: unknowns and equations grow alike.
    const int interior = static_cast<int>(rule.interior_times.size()) * 2 * problem.steps;
    EXPECT_EQ(program.num_variables(), (problem.steps + 2) * 2 + problem.steps + interior);
    EXPECT_EQ(program.num_constraints(), (problem.steps + 1) * 2 + interior);
    expect_derivatives_match_differences(program, rng);
  }
}

TEST(KernelDmoc, TheOneStageGaussRuleIsTheMidpointRule) {
  std::mt19937 rng(29);
  const auto kernels = kernel::ModelAdapter<systems::CartPole>::kernels(systems::CartPole{});
  DmocProblem problem(2, 1);
  problem.horizon = 1.1;
  problem.steps = 6;
  const KernelDmocTranscription midpoint(*kernels, kernel::Rule::kMidpoint, problem);
  const KernelDmocTranscription gauss(*kernels, kernel::dmoc_rule(kernel::gauss_tableau(1)), problem);
  ASSERT_EQ(gauss.num_variables(), midpoint.num_variables());
  ASSERT_EQ(gauss.num_constraints(), midpoint.num_constraints());
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  Eigen::VectorXd x(midpoint.num_variables()), lambda(midpoint.num_constraints());
  for (int i = 0; i < x.size(); ++i) x[i] = uniform(rng);
  for (int i = 0; i < lambda.size(); ++i) lambda[i] = uniform(rng);
  Eigen::VectorXd c(lambda.size()), gauss_c(lambda.size());
  midpoint.constraints(x, c);
  gauss.constraints(x, gauss_c);
  EXPECT_LT(relative(gauss_c, c), 1e-15);
  EXPECT_LT(relative(dense_jacobian(gauss, x), dense_jacobian(midpoint, x)), 1e-15);
  EXPECT_LT(relative(dense_hessian(gauss, x, 0.6, lambda), dense_hessian(midpoint, x, 0.6, lambda)), 1e-15);
}

TEST(KernelDmoc, RefusesWhatItCannotTranscribe) {
  const auto kernels = kernel::ModelAdapter<systems::CartPole>::kernels(systems::CartPole{});
  DmocProblem problem(2, 1);
  problem.steps = 0;
  EXPECT_THROW(KernelDmocTranscription(*kernels, kernel::Rule::kMidpoint, problem), std::invalid_argument);
  problem.steps = 4;
  problem.q_lower[1] = 1.0;  // above the start, 0
  EXPECT_THROW(KernelDmocTranscription(*kernels, kernel::Rule::kMidpoint, problem), std::invalid_argument);
  EXPECT_THROW(KernelDmocTranscription(*kernels, kernel::Rule::kMidpoint, DmocProblem(3, 1)),
               std::invalid_argument);
}

// ---- minimum-energy transfer of the harmonic oscillator ----------------------------------------

/// The oscillator from (0.3, −0.2) to (1, 0.5) in time T by N steps.
DmocProblem oscillator_transfer(double T, int steps) {
  DmocProblem problem(1, 1);
  problem.horizon = T;
  problem.steps = steps;
  problem.q_start << 0.3;
  problem.v_start << -0.2;
  problem.q_goal << 1.0;
  problem.v_goal << 0.5;
  problem.q_goal_given = {true};
  problem.v_goal_given = {true};
  return problem;
}

TEST(KernelDmoc, OscillatorTransferConvergesAtOrderTwoToTheGramianOptimum) {
  const ForcedOscillator oscillator{.mass = 1.3, .stiffness = 2.0};
  const auto kernels = kernel::ModelAdapter<ForcedOscillator>::kernels(oscillator);
  const double T = 2.0;
  const double exact = oscillator_minimum_energy(oscillator, T, {0.3, -0.2}, {1.0, 0.5});
  for (const kernel::Rule rule : {kernel::Rule::kMidpoint, kernel::Rule::kTrapezoid}) {
    std::vector<double> errors;
    for (const int steps : {20, 40, 80}) {
      const DmocProblem problem = oscillator_transfer(T, steps);
      const KernelDmocTranscription program(*kernels, rule, problem);
      optimal::IpoptSettings settings;
      settings.tolerance = 1e-12;
      const optimal::NlpSolution solution = optimal::solve_with_ipopt(program, settings);
      ASSERT_TRUE(solution.converged) << solution.status;
      errors.push_back(std::abs(solution.objective - exact));
    }
    for (std::size_t i = 1; i < errors.size(); ++i) {
      const double order = std::log2(errors[i - 1] / errors[i]);
      EXPECT_NEAR(order, 2.0, 0.2) << "rule " << static_cast<int>(rule) << ", refinement " << i;
    }
  }
}

// ---- the order of the optimal motion ------------------------------------------------------------

/// (q, q̇) at T of the oscillator's exact flow from (q0, v0) under the controls, each held over its
/// step: the equilibrium u/k moves, the motion about it turns at ω = √(k/m).
Eigen::Vector2d oscillator_exact_end(const ForcedOscillator& o, double h, const Eigen::VectorXd& controls,
                                     Eigen::Vector2d state) {
  const double w = std::sqrt(o.stiffness / o.mass), c = std::cos(w * h), s = std::sin(w * h);
  for (int k = 0; k < controls.size(); ++k) {
    const double equilibrium = controls[k] / o.stiffness, offset = state[0] - equilibrium;
    state = Eigen::Vector2d(equilibrium + offset * c + state[1] / w * s, -offset * w * s + state[1] * c);
  }
  return state;
}

TEST(KernelDmoc, OptimalControlsMissTheGoalOfTheExactFlowAtTheRulesOrder) {
  // The program's motion reaches the goal exactly; the exact flow under the same controls misses it by
  // the rule's error over the horizon: O(h²) for the straight line, O(h^2s) for s Gauss stages and
  // O(h^(2s−2)) for s Lobatto stages (the controls are held over each step, so the forcing is smooth
  // within every step and the rule keeps its order).
  const ForcedOscillator oscillator{.mass = 1.3, .stiffness = 2.0};
  const auto kernels = kernel::ModelAdapter<ForcedOscillator>::kernels(oscillator);
  const double T = 2.0;
  struct Case {
    const char* name;
    kernel::DmocRule rule;
    double order;
    std::vector<int> steps;  // in the asymptotic range, above round-off
  };
  const std::vector<Case> cases = {
      {"midpoint", kernel::dmoc_rule(kernel::Rule::kMidpoint), 2.0, {20, 40, 80}},
      {"trapezoid", kernel::dmoc_rule(kernel::Rule::kTrapezoid), 2.0, {20, 40, 80}},
      {"gauss4", kernel::dmoc_rule(kernel::gauss_tableau(2)), 4.0, {10, 20, 40}},
      {"gauss6", kernel::dmoc_rule(kernel::gauss_tableau(3)), 6.0, {5, 10, 20}},
      {"gauss8", kernel::dmoc_rule(kernel::gauss_tableau(4)), 8.0, {3, 5, 8}},
      {"lobatto4", kernel::dmoc_rule(kernel::lobatto_tableau(3)), 4.0, {10, 20, 40}},
      {"lobatto6", kernel::dmoc_rule(kernel::lobatto_tableau(4)), 6.0, {5, 10, 20}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<double> misses;
    for (const int steps : c.steps) {
      const DmocProblem problem = oscillator_transfer(T, steps);
      const KernelDmocTranscription program(*kernels, c.rule, problem);
      optimal::IpoptSettings settings;
      settings.tolerance = 1e-12;
      const optimal::NlpSolution solution = optimal::solve_with_ipopt(program, settings);
      ASSERT_TRUE(solution.converged) << solution.status;
      Eigen::VectorXd controls(steps);
      for (int k = 0; k < steps; ++k) controls[k] = solution.x[program.u_index(k)];
      const Eigen::Vector2d end = oscillator_exact_end(oscillator, program.step(), controls, {0.3, -0.2});
      misses.push_back((end - Eigen::Vector2d(1.0, 0.5)).lpNorm<Eigen::Infinity>());
    }
    for (std::size_t i = 1; i < misses.size(); ++i) {
      const double order = std::log(misses[i - 1] / misses[i]) / std::log(static_cast<double>(c.steps[i]) / c.steps[i - 1]);
      EXPECT_NEAR(order, c.order, 0.2) << "misses " << misses[i - 1] << " -> " << misses[i];
    }
  }
}

}  // namespace
}  // namespace mechint
