// ns per step of the Galerkin rules (vi-gauss4/6/8) and of the composed midpoint rule
// (compose=yoshida4…kahan-li8) on the kernel boundary: the Kepler problem and the restricted
// three-body problem (kernels by AD of the built-in models, kernel/model_adapter.hpp), and the
// pendulum chain of 5 and 20 links (hand-derived kernels). Beside them, on the same kernels, the
// midpoint VI (KernelVariationalIntegrator, step check off) and a hand-written leapfrog on Kepler
// (the explicit reference a celestial-mechanics user compares with). Counters: ns per step and per
// stage evaluation (stages × sub-steps). docs/methods.md has the table. BM_GalerkinTangent and
// BM_RungeKuttaTangent: a step carrying the deviation of the chaos indicators against the plain step.
#include <benchmark/benchmark.h>

#include <cmath>
#include <string>

#include "kernel/chain_kernels.hpp"
#include "kernel/energy_step_integrator.hpp"
#include "kernel/galerkin_integrator.hpp"
#include "kernel/kernel_runge_kutta.hpp"
#include "kernel/sundman_integrator.hpp"
#include "kernel/kernel_variational_integrator.hpp"
#include "kernel/model_adapter.hpp"
#include "mechint/systems/kepler.hpp"
#include "mechint/systems/three_body.hpp"
#include "step_loop.hpp"

namespace {

using namespace mechint;

struct MethodSpec {
  const char* label;
  int stages;
  const char* compose;
};
constexpr MethodSpec kMethods[] = {{"gauss4", 2, "none"},          {"gauss6", 3, "none"},
                                   {"gauss8", 4, "none"},          {"midpoint", 1, "none"},
                                   {"midpoint+yoshida4", 1, "yoshida4"}, {"midpoint+kahan-li6", 1, "kahan-li6"},
                                   {"midpoint+kahan-li8", 1, "kahan-li8"}};

void run_steps(benchmark::State& state, kernel::KernelGalerkinIntegrator& vi) {
  long steps = 0;
  for (auto _ : state) {
    vi.step();
    benchmark::DoNotOptimize(vi.q().data());
    ++steps;
  }
  const double stages = vi.tableau().stages * static_cast<double>(vi.composition().gammas.size());
  state.counters["ns_per_step"] =
      benchmark::Counter(static_cast<double>(steps) * 1e-9, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["ns_per_stage"] = benchmark::Counter(static_cast<double>(steps) * stages * 1e-9,
                                                      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

/// 0: Kepler (e = 0.5), 1: three-body, 2: chain of 5 links, 3: chain of 20 links.
std::shared_ptr<const kernel::KernelModel> problem(int which, kernel::Vector& q0, kernel::Vector& v0, double& h) {
  if (which == 0) {
    VecD<2> q, v;
    systems::Kepler::pericentre_start(1.0, 1.0, 0.5, q, v);
    q0 = q, v0 = v, h = 0.01;
    return kernel::ModelAdapter<systems::Kepler>::kernels(systems::Kepler{1.0});
  }
  if (which == 1) {
    q0 = Eigen::Vector2d(0.5, 0.0), v0 = Eigen::Vector2d(0.0, 0.9), h = 0.01;
    return kernel::ModelAdapter<systems::ThreeBody>::kernels(systems::ThreeBody{});
  }
  const int links = which == 2 ? 5 : 20;
  q0 = kernel::Vector::Zero(links), v0 = kernel::Vector::Zero(links), h = 0.01;
  q0[0] = M_PI / 4;
  return std::make_shared<const kernel::KernelModel>(kernel::pendulum_chain_model(links, 1.0, 1.0, 9.81));
}

void BM_Galerkin(benchmark::State& state) {
  kernel::Vector q0, v0;
  double h = 0.0;
  const auto model = problem(static_cast<int>(state.range(0)), q0, v0, h);
  const MethodSpec& m = kMethods[state.range(1)];
  kernel::KernelGalerkinIntegrator vi(*model, kernel::gauss_tableau(m.stages), h, kernel::composition_named(m.compose));
  vi.start_from_velocity(q0, v0);
  state.SetLabel(m.label);
  run_steps(state, vi);
}
BENCHMARK(BM_Galerkin)->ArgNames({"problem", "method"})->ArgsProduct({{0, 1, 2, 3}, {0, 1, 2, 3, 4, 5, 6}});

/// The same step carrying a deviation by the exact tangent map (track_deviation, the chaos
/// indicators): range(2) = 0 plain, 1 tracked, so the ratio is read within one run of the binary.
void BM_GalerkinTangent(benchmark::State& state) {
  kernel::Vector q0, v0;
  double h = 0.0;
  const auto model = problem(static_cast<int>(state.range(0)), q0, v0, h);
  const MethodSpec& m = kMethods[state.range(1)];
  kernel::KernelGalerkinIntegrator vi(*model, kernel::gauss_tableau(m.stages), h, kernel::composition_named(m.compose));
  vi.start_from_velocity(q0, v0);
  if (state.range(2) == 1) vi.track_deviation(kernel::initial_deviation(2 * model->dim()));
  state.SetLabel(std::string(m.label) + (state.range(2) == 1 ? " tangent" : " plain"));
  run_steps(state, vi);
}
BENCHMARK(BM_GalerkinTangent)
    ->ArgNames({"problem", "method", "tangent"})
    ->ArgsProduct({{0, 1, 2}, {0, 3}, {0, 1}});

/// rk4 on the same kernels, range(1) = 0 plain, 1 carrying a deviation by the variational equations
/// (kernel/kernel_runge_kutta.hpp): the augmented state (q, v, δq, δp).
void BM_RungeKuttaTangent(benchmark::State& state) {
  kernel::Vector q0, v0;
  double h = 0.0;
  const auto model = problem(static_cast<int>(state.range(0)), q0, v0, h);
  kernel::KernelRk4 rk(kernel::KernelEulerLagrangeOde(*model, nullptr), h);
  rk.start_from_velocity(q0, v0);
  if (state.range(1) == 1) rk.track_deviation(kernel::initial_deviation(2 * model->dim()));
  state.SetLabel(state.range(1) == 1 ? "rk4 variational" : "rk4 plain");
  mechint::bench::run_steps(state, rk);
}
BENCHMARK(BM_RungeKuttaTangent)->ArgNames({"problem", "tangent"})->ArgsProduct({{0, 1, 2, 3}, {0, 1}});

/// A step of adapt=sundman against a fixed step of the same rule, on Kepler e = 0.9 (s = r^1.5):
/// range(1) = 0 gauss4, 1 midpoint; range(2) = 0 fixed step (h = 0.001), 1 Sundman (fictive h = 0.05),
/// 2 adapt=energy (midpoint only; nominal h = 0.001 from pericentre). The trajectory's own steps, no rows.
void BM_AdaptiveStep(benchmark::State& state) {
  VecD<2> q, v;
  systems::Kepler::pericentre_start(1.0, 1.0, state.range(2) == 2 ? 0.5 : 0.9, q, v);
  const kernel::Vector q0 = q, v0 = v;
  const auto model = kernel::ModelAdapter<systems::Kepler>::kernels(systems::Kepler{1.0, 1.5});
  const int stages = state.range(1) == 0 ? 2 : 1;
  long steps = 0;
  const auto count = [&steps](benchmark::State& st) {
    st.counters["ns_per_step"] =
        benchmark::Counter(static_cast<double>(steps) * 1e-9, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  };
  if (state.range(2) == 0) {
    kernel::KernelGalerkinIntegrator vi(*model, kernel::gauss_tableau(stages), 0.001);
    vi.start_from_velocity(q0, v0);
    state.SetLabel(stages == 2 ? "gauss4 fixed" : "midpoint fixed");
    for (auto _ : state) vi.step(), benchmark::DoNotOptimize(vi.q().data()), ++steps;
  } else if (state.range(2) == 1) {
    kernel::KernelSundmanIntegrator vi(model, kernel::gauss_tableau(stages), 0.05);
    vi.start_from_velocity(q0, v0);
    state.SetLabel(stages == 2 ? "gauss4 sundman" : "midpoint sundman");
    for (auto _ : state) vi.step_toward(1e300), benchmark::DoNotOptimize(vi.q().data()), ++steps;
  } else {
    kernel::KernelEnergyStepIntegrator vi(*model, 0.001);
    vi.start_from_velocity(q0, v0);
    state.SetLabel("midpoint energy (e = 0.5)");
    for (auto _ : state) vi.step_toward(1e300), benchmark::DoNotOptimize(vi.q().data()), ++steps;
  }
  count(state);
}
BENCHMARK(BM_AdaptiveStep)
    ->ArgNames({"problem", "method", "adapt"})
    ->Args({0, 0, 0})
    ->Args({0, 0, 1})
    ->Args({0, 1, 0})
    ->Args({0, 1, 1})
    ->Args({0, 1, 2});

/// The midpoint VI of the kernel boundary (step check off), the Galerkin s = 1 rule's twin.
void BM_KernelMidpointVi(benchmark::State& state) {
  kernel::Vector q0, v0;
  double h = 0.0;
  const auto model = problem(static_cast<int>(state.range(0)), q0, v0, h);
  StepCheckOptions check;
  check.enabled = false;
  kernel::KernelVariationalIntegrator vi(*model, kernel::Rule::kMidpoint, h, {}, DelForm::kMomentum, check);
  vi.start_from_velocity(q0, v0);
  mechint::bench::run_steps(state, vi);
}
BENCHMARK(BM_KernelMidpointVi)->ArgName("problem")->DenseRange(0, 3);

/// A hand-written leapfrog (kick–drift–kick) on Kepler: one force evaluation per step.
void BM_KeplerLeapfrog(benchmark::State& state) {
  double x = 0.5, y = 0.0, vx = 0.0, vy = std::sqrt(3.0);
  const double h = 0.01;
  auto kick = [&](double dt) {
    const double r2 = x * x + y * y, inv_r3 = 1.0 / (r2 * std::sqrt(r2));
    vx -= dt * x * inv_r3, vy -= dt * y * inv_r3;
  };
  long steps = 0;
  for (auto _ : state) {
    kick(0.5 * h);
    x += h * vx, y += h * vy;
    kick(0.5 * h);
    benchmark::DoNotOptimize(x);
    benchmark::DoNotOptimize(y);
    ++steps;
  }
  state.counters["ns_per_step"] =
      benchmark::Counter(static_cast<double>(steps) * 1e-9, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_KeplerLeapfrog);

}  // namespace
