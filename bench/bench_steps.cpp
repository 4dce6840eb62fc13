// ns per step of the variational integrator (midpoint, momentum form, full Newton) on the models of
// issue 2, with the step check on (check:1, the default) and off (check:0), against DESIGN §5's
// figures for trep on the same chains:
//   1 link 12–19 µs, 2 links 30–41 µs, 10 links 490–580 µs per step (dt = 0.01).
// Counters: newton_iterations per step, and flops_estimate / flops_per_ns for the arithmetic a step
// must do at minimum (see docs/performance-history.md).
#include <benchmark/benchmark.h>

#include "kernel/kernel_variational_integrator.hpp"
#include "kernel/model_adapter.hpp"
#include "mechint/mechint.hpp"
#include "mechint/systems/kepler.hpp"
#include "mechint/systems/pendulum_chain.hpp"
#include "mechint/systems/spherical_pendulum.hpp"
#include "step_loop.hpp"

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

void BM_KeplerMidpoint(benchmark::State& state) {
  using systems::Kepler;
  VariationalIntegrator integ(DiscreteSystem<Kepler, MidpointRule>(Kepler{1.0}), 2 * M_PI / 100, {},
                              DelForm::kMomentum, step_check(state));
  VecD<2> q0, v0;
  Kepler::pericentre_start(1.0, 1.0, 0.5, q0, v0);
  integ.start_from_velocity(q0, v0);
  run_steps(state, integ);
}
BENCHMARK(BM_KeplerMidpoint)->ArgName("check")->Arg(1)->Arg(0);

/// The same steps on the model's kernels (the rule's derivatives supplied by AD, as a built-in's run
/// on the kernel path gets them): the runtime-sized integrator, on its fast path of compile-time
/// size n = 2 (docs/performance-history.md, "A step sized at compile time"). Against BM_KeplerMidpoint, the
/// fixed-size integrator of the same model in the same binary.
void BM_KeplerKernelMidpoint(benchmark::State& state) {
  using systems::Kepler;
  const auto kernels = kernel::ModelAdapter<Kepler>::kernels_for_runs(Kepler{1.0});
  kernel::KernelVariationalIntegrator integ(*kernels, kernel::Rule::kMidpoint, 2 * M_PI / 100, {}, DelForm::kMomentum,
                                            step_check(state));
  VecD<2> q0, v0;
  Kepler::pericentre_start(1.0, 1.0, 0.5, q0, v0);
  integ.start_from_velocity(Eigen::VectorXd(q0), Eigen::VectorXd(v0));
  bench::run_steps(state, integ);
}
BENCHMARK(BM_KeplerKernelMidpoint)->ArgName("check")->Arg(1)->Arg(0);

void BM_SphericalPendulumConstrained(benchmark::State& state) {
  using systems::SphericalPendulum;
  VariationalIntegrator integ(DiscreteSystem<SphericalPendulum, MidpointRule>(SphericalPendulum{}), 0.01);
  const double th = M_PI / 3;
  integ.start_from_velocity(VecD<3>(std::sin(th), 0, -std::cos(th)), VecD<3>(0, 2 * std::sin(th), 0));
  run_steps(state, integ);
}
BENCHMARK(BM_SphericalPendulumConstrained);

void BM_SphericalPendulumAngles(benchmark::State& state) {
  using namespace systems;
  using S = ChartedDiscreteSystem<SphericalPendulum, SphericalAnglesChart, MidpointRule>;
  VariationalIntegrator integ(S(SphericalPendulum{}, SphericalAnglesChart{1.0}), 0.01);
  integ.start_from_velocity(VecD<2>(M_PI / 3, 0), VecD<2>(0, 2.0));
  run_steps(state, integ);
}
BENCHMARK(BM_SphericalPendulumAngles);

template <int N>
void BM_PendulumChain(benchmark::State& state) {
  using Chain = systems::PendulumChain<N>;
  VariationalIntegrator integ(DiscreteSystem<Chain, MidpointRule>(Chain{}), 0.01, {}, DelForm::kMomentum,
                              step_check(state));
  integ.start_from_velocity(Chain::peer_start(), VecD<N>::Zero());
  run_steps(state, integ);
  // Arithmetic a step must do with the O(N²) derivatives (docs/performance-history.md): per Newton
  // iteration ~22N² for L's gradient and Hessian in relative angles, ~4N² to form the residual and
  // the Jacobian of the rule, 2N³/3 + 2N² for LU and solve; plus one derivative evaluation for p.
  const double n = N, it = state.counters["newton_iterations"];
  const double flops = it * (26 * n * n + 2 * n * n * n / 3 + 2 * n * n) + 26 * n * n;
  state.counters["flops_estimate"] = flops;
  state.counters["gflops"] = benchmark::Counter(flops * static_cast<double>(state.iterations()) * 1e-9,
                                                benchmark::Counter::kIsRate);
}
BENCHMARK(BM_PendulumChain<1>)->Name("BM_PendulumChain/links:1")->ArgName("check")->Arg(1)->Arg(0);
BENCHMARK(BM_PendulumChain<2>)->Name("BM_PendulumChain/links:2")->ArgName("check")->Arg(1)->Arg(0);
BENCHMARK(BM_PendulumChain<3>)->Name("BM_PendulumChain/links:3")->ArgName("check")->Arg(1)->Arg(0);
BENCHMARK(BM_PendulumChain<5>)->Name("BM_PendulumChain/links:5")->ArgName("check")->Arg(1)->Arg(0);
BENCHMARK(BM_PendulumChain<10>)->Name("BM_PendulumChain/links:10")->ArgName("check")->Arg(1)->Arg(0);
BENCHMARK(BM_PendulumChain<20>)->Name("BM_PendulumChain/links:20")->ArgName("check")->Arg(1)->Arg(0);
BENCHMARK(BM_PendulumChain<30>)->Name("BM_PendulumChain/links:30")->ArgName("check")->Arg(1)->Arg(0);

}  // namespace
