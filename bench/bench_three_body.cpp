// ns per step on the restricted three-body problem (001): the midpoint VI with full and with
// simplified Newton, and the classical RK4 on the Euler–Lagrange ODE derived from L, all at
// h = 0.01 on the bounded orbit of `mechint reproduce three-body`. Counters: Newton iterations and
// Jacobian factorizations per step.
#include <benchmark/benchmark.h>

#include <array>

#include <boost/numeric/odeint.hpp>

#include "kernel/builtin_model_kernels.hpp"
#include "kernel/kernel_variational_integrator.hpp"
#include "mechint/integrate/odeint_baselines.hpp"

namespace {

using namespace mechint;
using systems::ThreeBody;

const VecD<2> kQ0(0.5, 0.0), kV0(0.0, 0.9);
constexpr double kH = 0.01;

/// The midpoint VI on the built-in's kernels (AD of the model struct, compiled in the library).
void vi_steps(benchmark::State& state, NewtonVariant variant) {
  NewtonOptions options;
  options.variant = variant;
  const auto kernels = kernel::ModelAdapter<ThreeBody>::kernels_for_runs(ThreeBody{});
  kernel::KernelVariationalIntegrator vi(*kernels, kernel::Rule::kMidpoint, kH, options);
  vi.start_from_velocity(Eigen::VectorXd(kQ0), Eigen::VectorXd(kV0));
  const long iterations_before = vi.total_newton_iterations();
  long steps = 0, jacobians = 0;
  for (auto _ : state) {
    vi.step();
    jacobians += vi.last_newton_stats().jacobian_evaluations;
    benchmark::DoNotOptimize(vi.q().data());
    ++steps;
  }
  state.counters["newton_iterations"] = double(vi.total_newton_iterations() - iterations_before) / double(steps);
  state.counters["jacobians"] = double(jacobians) / double(steps);
  state.counters["ns_per_step"] =
      benchmark::Counter(double(steps) * 1e-9, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_ThreeBodyViFullNewton(benchmark::State& state) { vi_steps(state, NewtonVariant::kFull); }
BENCHMARK(BM_ThreeBodyViFullNewton);

void BM_ThreeBodyViSimplifiedNewton(benchmark::State& state) { vi_steps(state, NewtonVariant::kSimplified); }
BENCHMARK(BM_ThreeBodyViSimplifiedNewton);

/// RK4 steps of `ode` (Boost.Odeint's form, State = std::array<double, 4> laid out as (q, q̇)).
template <class Ode>
void rk4_steps(benchmark::State& state, const Ode& ode) {
  typename Ode::State x = {kQ0[0], kQ0[1], kV0[0], kV0[1]};
  boost::numeric::odeint::runge_kutta4<typename Ode::State> stepper;
  double t = 0;
  long steps = 0;
  for (auto _ : state) {
    stepper.do_step(ode, x, t, kH);
    t += kH;
    benchmark::DoNotOptimize(x.data());
    ++steps;
  }
  state.counters["ns_per_step"] =
      benchmark::Counter(double(steps) * 1e-9, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_ThreeBodyRk4(benchmark::State& state) { rk4_steps(state, EulerLagrangeOde{ThreeBody{}}); }
BENCHMARK(BM_ThreeBodyRk4);

// The same RK4 on the equations of motion written out by hand: the cost of deriving them from L
// by AD at every stage is the difference.
void BM_ThreeBodyRk4HandWritten(benchmark::State& state) { rk4_steps(state, systems::ThreeBodyEquationsOfMotion{}); }
BENCHMARK(BM_ThreeBodyRk4HandWritten);

}  // namespace
