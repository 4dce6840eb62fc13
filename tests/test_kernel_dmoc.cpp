// DMOC on the kernels (kernel/kernel_dmoc.hpp), the program `mechint optimize` solves for every
// system, checked against independent references: at random points near the interpolation guess,
// for the four built-ins with controls and every rule of second order on one of them at least, its
// constraints against the forced discrete Euler–Lagrange equations evaluated by hand in the test
// (DESIGN §7; docs/forces.md's table of Ld, f⁻, f⁺ per rule) from the model's ∂L/∂q, ∂L/∂q̇ and
// forces, its node energies against the Legendre transform of those hand momenta, its bounds and
// guess against the problem's, its Jacobian and Hessian of the Lagrangian against central
// differences of its own residuals (nlp_differences.hpp); solved by Ipopt, against the closed-form
// minimum-energy transfer of the harmonic oscillator (controllability Gramian), converging at order
// 2, with the exact Hessian and with L-BFGS. The Galerkin rules (interior control points as
// unknowns): central differences, the one-stage Gauss rule against the midpoint rule, and the order
// of the motion: the optimal controls of the oscillator applied to its exact flow miss the goal by
// O(h^order) of the rule.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "kernel/kernel_dmoc.hpp"
#include "kernel/builtin_model_kernels.hpp"  // the built-ins' kernels, linked to
#include "kernel/model_adapter.txx"  // the kernels of ForcedOscillator, a model of the tests alone
#include "mechint/model/lagrangian_calculus.hpp"
#include "mechint/model/legendre.hpp"
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

/// The DMOC program of `Model` evaluated by hand: one step's forced discrete Euler–Lagrange terms
/// A_k = D1 Ld + f⁻_k and B_k = D2 Ld + f⁺_k written out for each rule of second order on the
/// straight line v = (q1 − q0)/h (docs/forces.md):
///   midpoint  Ld = h L(q½, v),                 f⁻ = f⁺ = h/2 f(q½, v, u, t_k + h/2)
///   trapezoid Ld = h/2 [L(q0, v) + L(q1, v)],  f⁻ = h/2 f(q0, v, u, t_k), f⁺ = h/2 f(q1, v, u, t_k + h)
///   first order (right end point) Ld = h L(q1, v), f⁻ = 0, f⁺ = h f(q1, v, u, t_k + h)
/// from the model's ∂L/∂q, ∂L/∂q̇ (model/lagrangian_calculus.hpp) and its generalized force; then
/// the constraints (DESIGN §7, the forced discrete Legendre transforms at the ends)
///   c_0 = ∂L/∂q̇(q_start, v_start) + A_0,  c_k = B_{k−1} + A_k,  c_N = B_{N−1} − ∂L/∂q̇(q_N, v_N),
/// the node momenta p_k = −A_k, p_N = B_{N−1} and the cost h w Σ|u_k|².
template <class Model>
struct HandTranscription {
  static constexpr int n = Model::kDim, m = Model::kNumControls;
  Model model;
  kernel::Rule rule;
  DmocProblem problem;
  const KernelDmocTranscription& program;  // only for the layout of x

  double h() const { return problem.horizon / problem.steps; }
  VecD<n> q(const Eigen::VectorXd& x, int k) const { return x.segment<n>(program.q_index(k)); }
  VecD<m> u(const Eigen::VectorXd& x, int k) const { return x.segment<m>(program.u_index(k)); }

  void step(const Eigen::VectorXd& x, int k, VecD<n>& a, VecD<n>& b) const {
    const double h = this->h(), t0 = k * h;
    const VecD<n> q0 = q(x, k), q1 = q(x, k + 1), v = (q1 - q0) / h;
    const VecD<m> uk = u(x, k);
    const auto l_q = [&](const VecD<n>& at) { return VecD<n>(lagrangian_dq(model, at, v)); };
    const auto l_v = [&](const VecD<n>& at) { return VecD<n>(lagrangian_dv(model, at, v)); };
    const auto f = [&](const VecD<n>& at, double t) {
      return VecD<n>(model.template generalized_force<double>(at, v, uk, t));
    };
    switch (rule) {
      case kernel::Rule::kMidpoint: {
        const VecD<n> mid = 0.5 * (q0 + q1);
        const VecD<n> force = 0.5 * h * f(mid, t0 + 0.5 * h);
        a = 0.5 * h * l_q(mid) - l_v(mid) + force;
        b = 0.5 * h * l_q(mid) + l_v(mid) + force;
        return;
      }
      case kernel::Rule::kTrapezoid: {
        const VecD<n> p = 0.5 * (l_v(q0) + l_v(q1));
        a = 0.5 * h * l_q(q0) - p + 0.5 * h * f(q0, t0);
        b = 0.5 * h * l_q(q1) + p + 0.5 * h * f(q1, t0 + h);
        return;
      }
      case kernel::Rule::kFirstOrder:
        a = -l_v(q1);
        b = h * l_q(q1) + l_v(q1) + h * f(q1, t0 + h);
        return;
    }
    FAIL() << "a rule the hand evaluation does not know";
  }

  double objective(const Eigen::VectorXd& x) const {
    double sum = 0.0;
    for (int k = 0; k < problem.steps; ++k) sum += u(x, k).squaredNorm();
    return h() * problem.effort * sum;
  }

  Eigen::VectorXd constraints(const Eigen::VectorXd& x) const {
    const int N = problem.steps;
    Eigen::VectorXd c = Eigen::VectorXd::Zero((N + 1) * n);
    c.head<n>() = lagrangian_dv(model, VecD<n>(problem.q_start), VecD<n>(problem.v_start));
    for (int k = 0; k < N; ++k) {
      VecD<n> a, b;
      step(x, k, a, b);
      c.segment<n>(k * n) += a;
      c.segment<n>((k + 1) * n) += b;
    }
    c.segment<n>(N * n) -= lagrangian_dv(model, q(x, N), VecD<n>(x.segment<n>(program.v_end_index())));
    return c;
  }

  std::vector<double> energies(const Eigen::VectorXd& x) const {
    const int N = problem.steps;
    std::vector<double> e;
    for (int k = 0; k < N; ++k) {
      VecD<n> a, b;
      step(x, k, a, b);
      e.push_back(energy_from_momentum(model, q(x, k), VecD<n>(-a)));
      if (k + 1 == N) e.push_back(energy_from_momentum(model, q(x, N), b));
    }
    return e;
  }

  /// q_0 fixed to the start and the goal's given components of q_N and v_N fixed, the problem's
  /// bounds on every other q_k and every u_k, v_N otherwise free.
  void bounds(Eigen::VectorXd& lower, Eigen::VectorXd& upper) const {
    const int N = problem.steps;
    lower.resize(program.num_variables());
    upper.resize(program.num_variables());
    for (int k = 0; k <= N; ++k) {
      lower.segment<n>(program.q_index(k)) = problem.q_lower;
      upper.segment<n>(program.q_index(k)) = problem.q_upper;
    }
    lower.segment<n>(program.q_index(0)) = upper.segment<n>(program.q_index(0)) = problem.q_start;
    lower.segment<n>(program.v_end_index()).setConstant(-optimal::kUnbounded);
    upper.segment<n>(program.v_end_index()).setConstant(optimal::kUnbounded);
    for (int i = 0; i < n; ++i) {
      if (problem.q_goal_given[i]) lower[program.q_index(N) + i] = upper[program.q_index(N) + i] = problem.q_goal[i];
      if (problem.v_goal_given[i]) lower[program.v_end_index() + i] = upper[program.v_end_index() + i] = problem.v_goal[i];
    }
    for (int k = 0; k < N; ++k) {
      lower.segment<m>(program.u_index(k)) = problem.u_lower;
      upper.segment<m>(program.u_index(k)) = problem.u_upper;
    }
  }

  /// The straight line from the start to the goal (a free component stays at its start), its
  /// velocity at the end (the goal's where given), controls 0 unless a bound excludes it.
  Eigen::VectorXd guess() const {
    const int N = problem.steps;
    Eigen::VectorXd x(program.num_variables());
    VecD<n> q_end = problem.q_start, v_end;
    for (int i = 0; i < n; ++i)
      if (problem.q_goal_given[i]) q_end[i] = problem.q_goal[i];
    for (int k = 0; k <= N; ++k)
      x.segment<n>(program.q_index(k)) = problem.q_start + (q_end - problem.q_start) * (static_cast<double>(k) / N);
    v_end = (q_end - problem.q_start) / problem.horizon;
    for (int i = 0; i < n; ++i)
      if (problem.v_goal_given[i]) v_end[i] = problem.v_goal[i];
    x.segment<n>(program.v_end_index()) = v_end;
    for (int k = 0; k < N; ++k)
      for (int i = 0; i < m; ++i) x[program.u_index(k) + i] = std::clamp(0.0, problem.u_lower[i], problem.u_upper[i]);
    return x;
  }
};

/// The kernel program of `model` under `rule` is the hand-evaluated one (HandTranscription) at three
/// random points near the interpolation guess, up to the order of the arithmetic, and its
/// derivatives are the central differences of its residuals there.
template <class Model>
void expect_the_hand_evaluated_program(const Model& model, kernel::Rule rule, const DmocProblem& problem,
                                       std::mt19937& rng) {
  SCOPED_TRACE("rule " + std::to_string(static_cast<int>(rule)));
  const auto kernels = kernel::ModelAdapter<Model>::kernels_for_runs(model);
  const KernelDmocTranscription program(*kernels, rule, problem);
  const HandTranscription<Model> hand{model, rule, problem, program};
  constexpr int n = Model::kDim, m = Model::kNumControls;
  ASSERT_EQ(program.num_variables(), (problem.steps + 2) * n + problem.steps * m);
  ASSERT_EQ(program.num_constraints(), (problem.steps + 1) * n);
  const int nv = program.num_variables(), nc = program.num_constraints();
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  Eigen::VectorXd lower(nv), upper(nv), expected_lower, expected_upper;
  program.variable_bounds(lower, upper);
  hand.bounds(expected_lower, expected_upper);
  EXPECT_EQ(lower, expected_lower);
  EXPECT_EQ(upper, expected_upper);
  Eigen::VectorXd guess(nv);
  program.initial_point(guess);
  const Eigen::VectorXd expected_guess = hand.guess();
  EXPECT_LT((guess - expected_guess).lpNorm<Eigen::Infinity>(), 1e-15);
  for (int trial = 0; trial < 3; ++trial) {
    Eigen::VectorXd x = guess, lambda(nc);
    for (int i = 0; i < nv; ++i) x[i] += 0.2 * uniform(rng);
    for (int i = 0; i < nc; ++i) lambda[i] = uniform(rng);
    const double sigma = 0.5 + 0.5 * uniform(rng);
    EXPECT_NEAR(program.objective(x), hand.objective(x), 1e-14 * (1.0 + std::abs(hand.objective(x))));
    Eigen::VectorXd c(nc);
    program.constraints(x, c);
    EXPECT_LT(relative(c, hand.constraints(x)), 1e-13) << "constraints";
    expect_derivatives_match_differences_at(program, x, lambda, sigma);
    const std::vector<double> e = hand.energies(x), kernel_e = program.energies(x);
    ASSERT_EQ(kernel_e.size(), e.size());
    for (std::size_t k = 0; k < e.size(); ++k) EXPECT_NEAR(kernel_e[k], e[k], 1e-10 * (1.0 + std::abs(e[k]))) << k;
  }
}

TEST(KernelDmoc, CartPoleIsTheForcedDelEquationsByHand) {
  std::mt19937 rng(3);
  DmocProblem problem(2, 1);
  problem.horizon = 0.8;
  problem.steps = 5;
  problem.q_goal << 0.4, 3.0;
  problem.q_goal_given = {true, true};
  problem.v_goal_given = {true, false};
  problem.u_lower << -20.0;
  expect_the_hand_evaluated_program(systems::CartPole{}, kernel::Rule::kMidpoint, problem, rng);
}

TEST(KernelDmoc, AcrobotIsTheForcedDelEquationsByHand) {
  std::mt19937 rng(5);
  DmocProblem problem(2, 1);
  problem.horizon = 1.5;
  problem.steps = 6;
  problem.q_start << -1.4, 0.3;
  problem.q_goal << 1.2, -0.5;
  problem.q_goal_given = {true, true};
  problem.effort = 0.3;
  expect_the_hand_evaluated_program(systems::Acrobot{}, kernel::Rule::kTrapezoid, problem, rng);
}

TEST(KernelDmoc, LowThrustSpacecraftWithTwoControlsIsTheForcedDelEquationsByHand) {
  std::mt19937 rng(9);
  DmocProblem problem(2, 2);
  problem.horizon = 3.0;
  problem.steps = 5;
  problem.q_start << 1.0, 0.0;
  problem.v_start << 0.0, 1.0;
  problem.q_goal << 1.3, 2.5;
  problem.q_goal_given = {true, false};
  // Its forces depend on q: where each rule evaluates them matters.
  for (const kernel::Rule rule : {kernel::Rule::kMidpoint, kernel::Rule::kTrapezoid, kernel::Rule::kFirstOrder})
    expect_the_hand_evaluated_program(systems::LowThrustSpacecraft{}, rule, problem, rng);
}

TEST(KernelDmoc, DampedPendulumIsTheForcedDelEquationsByHand) {
  std::mt19937 rng(13);
  DmocProblem problem(1, 1);
  problem.horizon = 2.0;
  problem.steps = 7;
  problem.q_goal << 3.0;
  problem.q_goal_given = {true};
  problem.v_goal_given = {true};
  const systems::DampedPendulum model{.damping = 0.3};
  expect_the_hand_evaluated_program(model, kernel::Rule::kFirstOrder, problem, rng);
  expect_the_hand_evaluated_program(model, kernel::Rule::kTrapezoid, problem, rng);
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

optimal::NlpSolution solve_oscillator_transfer(const kernel::KernelModel& kernels, kernel::Rule rule, int steps,
                                               optimal::HessianMode hessian = optimal::HessianMode::kExact) {
  const KernelDmocTranscription program(kernels, rule, oscillator_transfer(2.0, steps));
  optimal::IpoptSettings settings;
  settings.hessian = hessian;
  settings.tolerance = 1e-12;
  return optimal::solve_with_ipopt(program, settings);
}

// Also the former fixed-size tests DmocOscillator.CostConvergesAtOrderTwoToTheGramianOptimum (the
// midpoint rule to N = 160, the constraints met, the last error) and TrapezoidRuleConvergesToo.
TEST(KernelDmoc, OscillatorTransferConvergesAtOrderTwoToTheGramianOptimum) {
  const ForcedOscillator oscillator{.mass = 1.3, .stiffness = 2.0};
  const auto kernels = kernel::ModelAdapter<ForcedOscillator>::kernels(oscillator);
  const double exact = oscillator_minimum_energy(oscillator, 2.0, {0.3, -0.2}, {1.0, 0.5});
  const std::pair<kernel::Rule, std::vector<int>> cases[] = {
      {kernel::Rule::kMidpoint, {20, 40, 80, 160}},
      {kernel::Rule::kTrapezoid, {20, 40, 80}},
  };
  for (const auto& [rule, all_steps] : cases) {
    std::vector<double> errors;
    for (const int steps : all_steps) {
      const optimal::NlpSolution solution = solve_oscillator_transfer(*kernels, rule, steps);
      ASSERT_TRUE(solution.converged) << solution.status;
      EXPECT_LT(solution.constraint_violation, 1e-9);
      errors.push_back(std::abs(solution.objective - exact));
    }
    std::cout << "oscillator transfer, rule " << static_cast<int>(rule) << ": exact cost " << exact << ", DMOC errors";
    for (double e : errors) std::cout << " " << e;
    std::cout << "\n";
    for (std::size_t i = 1; i < errors.size(); ++i) {
      const double order = std::log2(errors[i - 1] / errors[i]);
      EXPECT_NEAR(order, 2.0, 0.2) << "rule " << static_cast<int>(rule) << ", N = " << all_steps[i] << ", errors "
                                   << errors[i - 1] << " -> " << errors[i];
    }
    if (rule == kernel::Rule::kMidpoint) {
      EXPECT_LT(errors.back() / exact, 1e-3);
    }
  }
}

// Formerly DmocOscillator.LimitedMemoryHessianFindsTheSameOptimum of the fixed-size transcription.
TEST(KernelDmoc, LimitedMemoryHessianFindsTheSameOptimum) {
  const auto kernels = kernel::ModelAdapter<ForcedOscillator>::kernels(ForcedOscillator{.mass = 1.3, .stiffness = 2.0});
  const auto exact = solve_oscillator_transfer(*kernels, kernel::Rule::kMidpoint, 40, optimal::HessianMode::kExact);
  const auto lbfgs = solve_oscillator_transfer(*kernels, kernel::Rule::kMidpoint, 40, optimal::HessianMode::kLimitedMemory);
  ASSERT_TRUE(exact.converged && lbfgs.converged) << exact.status << " / " << lbfgs.status;
  EXPECT_NEAR(lbfgs.objective, exact.objective, 1e-8 * exact.objective);
  EXPECT_LT((lbfgs.x - exact.x).lpNorm<Eigen::Infinity>(), 1e-5);
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
