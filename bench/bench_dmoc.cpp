// Solve time of DMOC (the program `mechint optimize` builds, kernel/kernel_dmoc.hpp on the models'
// AD kernels, + Ipopt) against the number of steps N = 50 … 800, with the exact sparse Hessian of the
// Lagrangian and with Ipopt's limited-memory (L-BFGS) approximation: the pendulum swing-up (n = 1,
// m = 1) and the cart-pole swing-up (n = 2, m = 1, bounds on force and travel). Counters: Ipopt
// iterations and cost. BM_CartPoleEvaluation times one evaluation of the constraints' Jacobian and of
// the Lagrangian's Hessian (N = 200). BM_CartPoleSwingUpGalerkin solves the cart-pole swing-up with the Galerkin rules
// (s Gauss stages, s − 1 interior control points a step; s = 1 is the midpoint rule through the same
// program). docs/optimal-control.md and docs/performance-history.md quote the figures.
#include <benchmark/benchmark.h>

#include <cmath>

#include <random>

#include "kernel/kernel_dmoc.hpp"
#include "kernel/builtin_model_kernels.hpp"
#include "mechint/optimal/ipopt_solver.hpp"

namespace {

using namespace mechint;
using optimal::HessianMode;

optimal::DmocProblem pendulum_swing_up(int steps) {
  optimal::DmocProblem p(1, 1);
  p.horizon = 3.0;
  p.steps = steps;
  p.q_goal << M_PI;
  p.q_goal_given = {true};
  p.v_goal_given = {true};
  return p;
}

optimal::DmocProblem cart_pole_swing_up(int steps) {
  optimal::DmocProblem p(2, 1);
  p.horizon = 2.5;
  p.steps = steps;
  p.q_goal << 0.0, M_PI;
  p.q_goal_given = {true, true};
  p.v_goal_given = {true, true};
  p.u_lower << -20.0;
  p.u_upper << 20.0;
  p.q_lower << -1.0, -optimal::kUnbounded;
  p.q_upper << 1.0, optimal::kUnbounded;
  return p;
}

template <class Model>
void solve(benchmark::State& state, const Model& model, const optimal::DmocProblem& problem) {
  const auto hessian = state.range(1) == 0 ? HessianMode::kExact : HessianMode::kLimitedMemory;
  const auto kernels = kernel::ModelAdapter<Model>::kernels_for_runs(model);
  optimal::NlpSolution solution;
  for (auto _ : state) {
    kernel::KernelDmocTranscription program(*kernels, kernel::Rule::kMidpoint, problem);
    solution = optimal::solve_with_ipopt(program, {.hessian = hessian, .tolerance = 1e-8, .max_iterations = 5000});
  }
  if (!solution.converged) state.SkipWithError(("not converged: " + solution.status).c_str());
  state.counters["iterations"] = solution.iterations;
  state.counters["cost"] = solution.objective;
}

void BM_PendulumSwingUp(benchmark::State& state) {
  solve(state, systems::DampedPendulum{}, pendulum_swing_up(static_cast<int>(state.range(0))));
}

void BM_CartPoleSwingUp(benchmark::State& state) {
  solve(state, systems::CartPole{}, cart_pole_swing_up(static_cast<int>(state.range(0))));
}

/// Arguments: N, then the number s of Gauss stages (exact Hessian).
void BM_CartPoleSwingUpGalerkin(benchmark::State& state) {
  const auto kernels = kernel::ModelAdapter<systems::CartPole>::kernels_for_runs(systems::CartPole{});
  const kernel::DmocRule rule = kernel::dmoc_rule(kernel::gauss_tableau(static_cast<int>(state.range(1))));
  optimal::NlpSolution solution;
  for (auto _ : state) {
    kernel::KernelDmocTranscription program(*kernels, rule, cart_pole_swing_up(static_cast<int>(state.range(0))));
    solution = optimal::solve_with_ipopt(program, {.tolerance = 1e-8, .max_iterations = 5000});
  }
  if (!solution.converged) state.SkipWithError(("not converged: " + solution.status).c_str());
  state.counters["iterations"] = solution.iterations;
  state.counters["cost"] = solution.objective;
}

/// One Jacobian and one Hessian of the Lagrangian at a point near the guess.
void evaluate(benchmark::State& state, const optimal::NonlinearProgram& program) {
  Eigen::VectorXd x(program.num_variables()), lambda(program.num_constraints());
  program.initial_point(x);
  std::mt19937 random(5);
  std::uniform_real_distribution<double> uniform(-0.1, 0.1);
  for (int i = 0; i < x.size(); ++i) x[i] += uniform(random);
  for (int i = 0; i < lambda.size(); ++i) lambda[i] = uniform(random);
  Eigen::VectorXd jacobian(program.jacobian_structure().size()), hessian(program.hessian_structure().size());
  for (auto _ : state) {
    program.constraint_jacobian(x, jacobian);
    program.lagrangian_hessian(x, 1.0, lambda, hessian);
    benchmark::ClobberMemory();
  }
}

void BM_CartPoleEvaluation(benchmark::State& state) {
  const auto kernels = kernel::ModelAdapter<systems::CartPole>::kernels_for_runs(systems::CartPole{});
  const kernel::KernelDmocTranscription program(*kernels, kernel::Rule::kMidpoint, cart_pole_swing_up(200));
  evaluate(state, program);
}

// Arguments: N, then 0 = exact Hessian, 1 = limited memory.
BENCHMARK(BM_PendulumSwingUp)->ArgsProduct({{50, 100, 200, 400, 800}, {0, 1}})->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_CartPoleSwingUp)->ArgsProduct({{50, 100, 200, 400, 800}, {0, 1}})->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_CartPoleSwingUpGalerkin)->ArgsProduct({{25, 50, 100, 200}, {1, 2, 3}})->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_CartPoleEvaluation)->Unit(benchmark::kMicrosecond);

}  // namespace
