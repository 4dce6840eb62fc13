// Solve time of DMOC (optimal/dmoc.hpp + Ipopt) against the number of steps N = 50 … 800, with the
// exact sparse Hessian of the Lagrangian and with Ipopt's limited-memory (L-BFGS) approximation:
// the pendulum swing-up (n = 1, m = 1) and the cart-pole swing-up (n = 2, m = 1, bounds on force
// and travel). Counters: Ipopt iterations and cost. docs/optimal-control.md
// quotes the figures.
#include <benchmark/benchmark.h>

#include <cmath>

#include "mechint/discrete/discrete_system.hpp"
#include "mechint/optimal/dmoc.hpp"
#include "mechint/optimal/ipopt_solver.hpp"
#include "mechint/systems/cart_pole.hpp"
#include "mechint/systems/damped_pendulum.hpp"

namespace {

using namespace mechint;
using optimal::HessianMode;

optimal::OptimalControlProblem<1, 1> pendulum_swing_up(int steps) {
  optimal::OptimalControlProblem<1, 1> p;
  p.horizon = 3.0;
  p.steps = steps;
  p.q_goal << M_PI;
  p.q_goal_given << true;
  p.v_goal_given << true;
  return p;
}

optimal::OptimalControlProblem<2, 1> cart_pole_swing_up(int steps) {
  optimal::OptimalControlProblem<2, 1> p;
  p.horizon = 2.5;
  p.steps = steps;
  p.q_goal << 0.0, M_PI;
  p.q_goal_given << true, true;
  p.v_goal_given << true, true;
  p.u_lower << -20.0;
  p.u_upper << 20.0;
  p.q_lower << -1.0, -optimal::kUnbounded;
  p.q_upper << 1.0, optimal::kUnbounded;
  return p;
}

template <class System, class Problem>
void solve(benchmark::State& state, const System& system, const Problem& problem) {
  const auto hessian = state.range(1) == 0 ? HessianMode::kExact : HessianMode::kLimitedMemory;
  optimal::NlpSolution solution;
  for (auto _ : state) {
    optimal::DmocTranscription<System> program(system, problem);
    // An opaque call: nothing to keep from the optimizer (and DoNotOptimize on a double lvalue is
    // miscompiled with GCC by Debian's benchmark 1.7: its "+m,r" constraint writes a register back).
    solution = optimal::solve_with_ipopt(program, {.hessian = hessian, .tolerance = 1e-8, .max_iterations = 5000});
  }
  if (!solution.converged) state.SkipWithError(("not converged: " + solution.status).c_str());
  state.counters["iterations"] = solution.iterations;
  state.counters["cost"] = solution.objective;
}

void BM_PendulumSwingUp(benchmark::State& state) {
  solve(state, DiscreteSystem<systems::DampedPendulum, MidpointRule>(systems::DampedPendulum{}),
        pendulum_swing_up(static_cast<int>(state.range(0))));
}

void BM_CartPoleSwingUp(benchmark::State& state) {
  solve(state, DiscreteSystem<systems::CartPole, MidpointRule>(systems::CartPole{}),
        cart_pole_swing_up(static_cast<int>(state.range(0))));
}

// Arguments: N, then 0 = exact Hessian, 1 = limited memory.
BENCHMARK(BM_PendulumSwingUp)->ArgsProduct({{50, 100, 200, 400, 800}, {0, 1}})->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_CartPoleSwingUp)->ArgsProduct({{50, 100, 200, 400, 800}, {0, 1}})->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
