// ns per step of the variational integrator (midpoint, momentum form, full Newton) on the built-ins'
// derivative kernels (AD of the model structs, compiled once in the library), with the step check on
// (check:1, the default) and off (check:0). The pendulum chain of DESIGN §5's trep figures is in
// bench_kernel_chain.cpp. Counter: newton_iterations per step.
#include <benchmark/benchmark.h>

#include "kernel/kernel_variational_integrator.hpp"
#include "kernel/builtin_model_kernels.hpp"

namespace {

using namespace mechint;

template <class Integrator>
void run_steps(benchmark::State& state, Integrator& integ) {
  long steps = 0;
  const long iterations_before = integ.total_newton_iterations();
  for (auto _ : state) {
    integ.step();
    benchmark::DoNotOptimize(integ.q().data());
    ++steps;
  }
  state.SetItemsProcessed(steps);
  state.counters["newton_iterations"] =
      static_cast<double>(integ.total_newton_iterations() - iterations_before) / static_cast<double>(steps);
  state.counters["ns_per_step"] = benchmark::Counter(static_cast<double>(steps) * 1e-9,
                                                     benchmark::Counter::kIsRate |
                                                         benchmark::Counter::kInvert);
}

/// The step check (docs/trustworthy-runs.md) on (argument 1, the default) or off (0).
StepCheckOptions step_check(const benchmark::State& state) {
  StepCheckOptions check;
  check.enabled = state.range(0) != 0;
  return check;
}

/// Kepler's problem (the rule's derivatives supplied by AD, as a built-in's run gets them): the
/// runtime-sized integrator on its fast path of compile-time size n = 2 (docs/performance-history.md,
/// "A step sized at compile time").
void BM_KeplerMidpoint(benchmark::State& state) {
  using systems::Kepler;
  const auto kernels = kernel::ModelAdapter<Kepler>::kernels_for_runs(Kepler{1.0});
  kernel::KernelVariationalIntegrator integ(*kernels, kernel::Rule::kMidpoint, 2 * M_PI / 100, {}, DelForm::kMomentum,
                                            step_check(state));
  VecD<2> q0, v0;
  Kepler::pericentre_start(1.0, 1.0, 0.5, q0, v0);
  integ.start_from_velocity(Eigen::VectorXd(q0), Eigen::VectorXd(v0));
  run_steps(state, integ);
}
BENCHMARK(BM_KeplerMidpoint)->ArgName("check")->Arg(1)->Arg(0);

/// The spherical pendulum in Cartesian coordinates with its constraint |q| = l (000 §4.2).
void BM_SphericalPendulumConstrained(benchmark::State& state) {
  using systems::SphericalPendulum;
  const auto kernels = kernel::ModelAdapter<SphericalPendulum>::kernels_for_runs(SphericalPendulum{});
  kernel::KernelVariationalIntegrator integ(*kernels, kernel::Rule::kMidpoint, 0.01);
  const double th = M_PI / 3;
  integ.start_from_velocity(Eigen::Vector3d(std::sin(th), 0, -std::cos(th)), Eigen::Vector3d(0, 2 * std::sin(th), 0));
  run_steps(state, integ);
}
BENCHMARK(BM_SphericalPendulumConstrained);

/// The same pendulum in the chart's angles (000 §4.2): no constraint, two coordinates.
void BM_SphericalPendulumAngles(benchmark::State& state) {
  using systems::SphericalPendulumInAngles;
  const SphericalPendulumInAngles model(systems::SphericalPendulum{}, systems::SphericalAnglesChart{1.0});
  const auto kernels = kernel::ModelAdapter<SphericalPendulumInAngles>::kernels_for_runs(model);
  kernel::KernelVariationalIntegrator integ(*kernels, kernel::Rule::kMidpoint, 0.01);
  integ.start_from_velocity(Eigen::Vector2d(M_PI / 3, 0), Eigen::Vector2d(0, 2.0));
  run_steps(state, integ);
}
BENCHMARK(BM_SphericalPendulumAngles);

}  // namespace
