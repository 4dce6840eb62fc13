// ns per step of the pendulum chain on its derivative kernels (src/kernel/: runtime-sized, compiled
// once for every length) next to the fixed-size chain of bench_steps.cpp (BM_PendulumChain, one
// template per length): the same midpoint VI, momentum form, full Newton, step check on (check:1)
// or off (check:0). Beyond 30 links only the kernel chain exists. docs/performance-history.md has the table.
#include <benchmark/benchmark.h>

#include <cmath>

#include "kernel/chain_kernels.hpp"
#include "kernel/kernel_variational_integrator.hpp"
#include "mechint/mechint.hpp"
#include "mechint/systems/pendulum_chain.hpp"
#include "step_loop.hpp"

namespace {

using namespace mechint;

using mechint::bench::run_steps;

StepCheckOptions step_check(const benchmark::State& state) {
  StepCheckOptions check;
  check.enabled = state.range(1) != 0;
  return check;
}

void BM_KernelChain(benchmark::State& state) {
  const int links = static_cast<int>(state.range(0));
  const kernel::KernelModel chain = kernel::pendulum_chain_model(links, 1.0, 1.0, 9.81);
  kernel::KernelVariationalIntegrator integ(chain, kernel::Rule::kMidpoint, 0.01, {}, DelForm::kMomentum,
                                            step_check(state));
  // DESIGN §5's start: π/4 for one link, (π/2, 0) for two, (π/4, 0, …) for more; at rest.
  kernel::Vector q0 = kernel::Vector::Zero(links);
  q0[0] = links == 2 ? M_PI / 2 : M_PI / 4;
  integ.start_from_velocity(q0, kernel::Vector::Zero(links));
  run_steps(state, integ);
}
BENCHMARK(BM_KernelChain)
    ->ArgNames({"links", "check"})
    ->ArgsProduct({{1, 2, 3, 5, 10, 20, 30, 50, 100}, {1, 0}});

/// The fixed-size chain in the same program, for paired ratios.
template <int N>
void BM_FixedChain(benchmark::State& state) {
  using Chain = systems::PendulumChain<N>;
  VariationalIntegrator integ(DiscreteSystem<Chain, MidpointRule>(Chain{}), 0.01, {}, DelForm::kMomentum,
                              step_check(state));
  integ.start_from_velocity(Chain::peer_start(), VecD<N>::Zero());
  run_steps(state, integ);
}
BENCHMARK(BM_FixedChain<1>)->ArgNames({"links", "check"})->Args({1, 1});
BENCHMARK(BM_FixedChain<2>)->ArgNames({"links", "check"})->Args({2, 1});
BENCHMARK(BM_FixedChain<3>)->ArgNames({"links", "check"})->Args({3, 1});
BENCHMARK(BM_FixedChain<5>)->ArgNames({"links", "check"})->Args({5, 1});
BENCHMARK(BM_FixedChain<10>)->ArgNames({"links", "check"})->Args({10, 1});
BENCHMARK(BM_FixedChain<20>)->ArgNames({"links", "check"})->Args({20, 1});
BENCHMARK(BM_FixedChain<30>)->ArgNames({"links", "check"})->Args({30, 1});

}  // namespace
