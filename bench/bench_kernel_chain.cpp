// ns per step of the pendulum chain on its hand-derived derivative kernels (src/kernel/chain_kernels:
// runtime-sized, compiled once for every length): midpoint VI, momentum form, full Newton, step check
// on (check:1) or off (check:0). docs/performance.md has the table.
#include <benchmark/benchmark.h>

#include <cmath>

#include "kernel/chain_kernels.hpp"
#include "kernel/kernel_variational_integrator.hpp"
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

}  // namespace
