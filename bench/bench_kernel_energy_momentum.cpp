// ns per step of the energy–momentum integrator on derivative kernels (src/kernel/, runtime-sized;
// the built-in model's kernels by AD, kernel/model_adapter.hpp) on the double spherical pendulum
// (6 coordinates, 2 constraints, pattern I, h = 0.01): plain (compose:0) and composed with yoshida4
// (compose:1). docs/performance.md has the figures.
#include <benchmark/benchmark.h>

#include "kernel/energy_momentum_integrator.hpp"
#include "kernel/galerkin_tableau.hpp"
#include "kernel/model_adapter.hpp"
#include "mechint/systems/double_spherical_pendulum.hpp"
#include "step_loop.hpp"

namespace {

using namespace mechint;
using systems::DoubleSphericalPendulum;

using mechint::bench::run_steps;

std::vector<double> composition(const benchmark::State& state) {
  return state.range(0) != 0 ? kernel::composition_named("yoshida4").gammas : std::vector<double>{};
}

void BM_EnergyMomentumKernels(benchmark::State& state) {
  const DoubleSphericalPendulum model;
  const auto st = systems::complete_dsp_start(model, systems::named_dsp_start("pattern-1"));
  const auto kernels = kernel::ModelAdapter<DoubleSphericalPendulum>::kernels(model);
  kernel::KernelEnergyMomentumIntegrator em(*kernels, 0.01, {}, {}, composition(state));
  em.start_from_velocity(st.q, st.v);
  run_steps(state, em);
}
BENCHMARK(BM_EnergyMomentumKernels)->ArgName("compose")->Arg(0)->Arg(1);

}  // namespace
