// vi-trapezoid on the Kepler problem beside a hand-written leapfrog loop (issue 30: "vi-trapezoid
// costs ≤ 1.2× a hand-written leapfrog loop"). L = ½|q̇|² + μ/|q| is separable with a constant mass
// matrix, so vi-trapezoid takes its explicit Störmer–Verlet steps (src/kernel/galerkin_integrator.hpp);
// the leapfrog below is the same method (kick-drift-kick with the last acceleration reused) written
// by hand on plain doubles. Orbit e = 0.5, 100 steps per period, as bench_steps' BM_KeplerMidpoint.
//
//   BM_KeplerLeapfrog              the hand-written loop
//   BM_KeplerViTrapezoidKernels    mechint's vi-trapezoid step (2-stage Lobatto), composed or not,
//                                  explicit (the model's own step or the methods' drift and kick) or
//                                  by Newton (the explicit path refused)
//   BM_KeplerKernelTrapezoidOverLeapfrog  the ratio, paired: 41 rounds of 20 000 leapfrog steps and
//                                  20 000 vi-trapezoid steps one after the other in this process, timed
//                                  by the thread's CPU clock; the counter ratio_median is the median over
//                                  the rounds of (vi-trapezoid time)/(leapfrog time) (docs/performance.md),
//                                  for the explicit step `mechint run kepler --method vi-trapezoid` takes.
//   BM_KeplerComposedMidpointOverLeapfrog  the composition kahan-li8 at 148 steps per period (what
//                                  rk78's best phase error over 10⁴ periods needs, docs/methods.md) of
//                                  the implicit midpoint rule over that of the leapfrog, paired as above:
//                                  hand_written = 1, both written by hand on plain doubles, the midpoint
//                                  sub-step by Newton with the exact 2 x 2 Jacobian (the least an
//                                  implicit sub-step costs); 0, mechint's composed vi-midpoint (the
//                                  1-stage Gauss rule of the kernel boundary) over the hand-written
//                                  leapfrog. Counter newton_per_substep: the hand-written Newton's updates.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <vector>

#include "kernel/galerkin_integrator.hpp"
#include "kernel/builtin_model_kernels.hpp"

namespace {

using namespace mechint;
using systems::Kepler;

constexpr double kMu = 1.0;
const double kStep = 2 * M_PI / 100;

/// Kick-drift-kick sub-steps of any length, the acceleration kept from one to the next: the
/// composition's explicit sub-step, written by hand.
struct LeapfrogSubsteps {
  double x, y, vx, vy, ax = 0.0, ay = 0.0;
  LeapfrogSubsteps(const VecD<2>& q, const VecD<2>& v) : x(q[0]), y(q[1]), vx(v[0]), vy(v[1]) { accelerate(); }
  void accelerate() {
    const double r2 = x * x + y * y;
    const double s = -kMu / (r2 * std::sqrt(r2));
    ax = s * x, ay = s * y;
  }
  void substep(double h) {
    vx += 0.5 * h * ax, vy += 0.5 * h * ay;
    x += h * vx, y += h * vy;
    accelerate();
    vx += 0.5 * h * ax, vy += 0.5 * h * ay;
  }
};

/// Kick-drift-kick on plain doubles, the acceleration at the end of a step kept for the next.
struct Leapfrog : LeapfrogSubsteps {
  double h;
  Leapfrog(const VecD<2>& q, const VecD<2>& v, double step) : LeapfrogSubsteps(q, v), h(step) {}
  void step() { substep(h); }
};

/// The implicit midpoint rule's sub-step, by hand (M = I, so p = v): V = p0 + (h/2) a(q0 + (h/2) V)
/// by Newton with the exact Jacobian I − (h²/4) ∂a/∂q, from V = p0 + (h/2) a of the previous
/// sub-step's midpoint, until an update moves q by at most 1e-12 (1 + |q|∞) (mechint's default
/// newton_tol); then q1 = q0 + h V and p1 = p0 + h a(Q) at the converged midpoint Q, so that p1 and
/// q1 are of one stage. Everything stays in registers: no kernel call, no bookkeeping, no check.
struct MidpointSubsteps {
  double x, y, px, py, ax = 0.0, ay = 0.0;
  long updates = 0;
  MidpointSubsteps(const VecD<2>& q, const VecD<2>& v) : x(q[0]), y(q[1]), px(v[0]), py(v[1]) {}
  void substep(double h) {
    double vx = px + 0.5 * h * ax, vy = py + 0.5 * h * ay;
    const double tolerance = 1e-12 * (1.0 + std::max(std::abs(x), std::abs(y)));
    for (int k = 0; k < 50; ++k) {
      const double qx = x + 0.5 * h * vx, qy = y + 0.5 * h * vy;
      // Two divisions an update, the fewest: 1/r, and 1/det.
      const double inv_r = 1.0 / std::sqrt(qx * qx + qy * qy), inv_r2 = inv_r * inv_r;
      const double inv_r3 = kMu * inv_r2 * inv_r, inv_r5 = inv_r3 * inv_r2;
      const double rx = vx - px + 0.5 * h * qx * inv_r3, ry = vy - py + 0.5 * h * qy * inv_r3;
      const double c = 0.25 * h * h;  // ∂a/∂q = −μ (I/r³ − 3 q qᵀ/r⁵)
      const double j11 = 1.0 + c * (inv_r3 - 3.0 * qx * qx * inv_r5), j22 = 1.0 + c * (inv_r3 - 3.0 * qy * qy * inv_r5);
      const double j12 = -3.0 * c * qx * qy * inv_r5, inv_det = 1.0 / (j11 * j22 - j12 * j12);
      const double dx = (j22 * rx - j12 * ry) * inv_det, dy = (j11 * ry - j12 * rx) * inv_det;
      vx -= dx, vy -= dy, ++updates;
      if (std::abs(h) * std::max(std::abs(dx), std::abs(dy)) <= tolerance) break;
    }
    const double qx = x + 0.5 * h * vx, qy = y + 0.5 * h * vy, r2 = qx * qx + qy * qy;
    const double s = -kMu / (r2 * std::sqrt(r2));
    ax = s * qx, ay = s * qy;
    x += h * vx, y += h * vy, px += h * ax, py += h * ay;
  }
};

/// One step of h: the sub-steps γ_i h of a composition in turn.
template <class Substeps>
struct ComposedSteps {
  Substeps s;
  std::vector<double> gammas;
  double h;
  void step() {
    for (double gamma : gammas) s.substep(gamma * h);
  }
};

Leapfrog leapfrog() {
  VecD<2> q0, v0;
  Kepler::pericentre_start(kMu, 1.0, 0.5, q0, v0);
  return Leapfrog(q0, v0, kStep);
}

void per_step(benchmark::State& state, long steps) {
  state.SetItemsProcessed(steps);
  state.counters["ns_per_step"] = benchmark::Counter(static_cast<double>(steps) * 1e-9,
                                                     benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_KeplerLeapfrog(benchmark::State& state) {
  Leapfrog lf = leapfrog();
  long steps = 0;
  for (auto _ : state) {
    lf.step();
    benchmark::DoNotOptimize(lf.x);
    benchmark::DoNotOptimize(lf.y);
    ++steps;
  }
  per_step(state, steps);
}
BENCHMARK(BM_KeplerLeapfrog);

/// The kernel boundary's vi-trapezoid (2-stage Lobatto) composed with the scheme of argument 0
/// (0 none, 1 yoshida4, 2 kahan-li6, 3 kahan-li8), explicit on the model's side (argument 1 = 2,
/// model_kernels.h's separable_step, what the command line takes), explicit on the methods' side
/// (1: their drift and kick around the model's L_q) or by Newton (0).
void BM_KeplerViTrapezoidKernels(benchmark::State& state) {
  static const char* const kSchemes[] = {"none", "yoshida4", "kahan-li6", "kahan-li8"};
  const auto model = kernel::ModelAdapter<Kepler>::kernels(Kepler{kMu});
  // The step's arithmetic alone, unchecked: the model's own step is taken with the step check off
  // only (with it on, the methods' drift and kick take L at q1 from the same evaluation).
  StepCheckOptions unchecked;
  unchecked.enabled = false;
  kernel::KernelGalerkinIntegrator vi(*model, kernel::lobatto_tableau(2), kStep,
                                      kernel::composition_named(kSchemes[state.range(0)]), NewtonOptions{}, unchecked);
  VecD<2> q0, v0;
  Kepler::pericentre_start(kMu, 1.0, 0.5, q0, v0);
  vi.allow_explicit_steps(state.range(1) != 0);
  vi.allow_model_explicit_steps(state.range(1) == 2);
  vi.start_from_velocity(q0, v0);
  if (vi.explicit_steps() != (state.range(1) != 0) || vi.model_takes_explicit_steps() != (state.range(1) == 2))
    state.SkipWithError("the explicit path is not where it should be");
  long steps = 0;
  for (auto _ : state) {
    vi.step();
    benchmark::DoNotOptimize(vi.q().data());
    ++steps;
  }
  per_step(state, steps);
}
BENCHMARK(BM_KeplerViTrapezoidKernels)->ArgNames({"compose", "explicit"})->ArgsProduct({{0, 1, 2, 3}, {2, 1, 0}});

/// This thread's CPU time in seconds: the machine is shared, and wall time counts the other
/// processes' turns on the core.
double thread_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

/// CPU seconds for `steps` steps of `stepper`.
template <class Stepper>
double seconds_for(Stepper& stepper, long steps) {
  const double t0 = thread_seconds();
  for (long i = 0; i < steps; ++i) {
    stepper.step();
    benchmark::ClobberMemory();
  }
  return thread_seconds() - t0;
}

/// The paired ratio of the header comment for `stepper` over `reference`, `steps` steps of each a round.
template <class Reference, class Stepper>
void paired_ratio(benchmark::State& state, Reference& reference, Stepper& stepper, long steps) {
  std::vector<double> ratios;
  for (auto _ : state) {
    const double t_reference = seconds_for(reference, steps);
    const double t_stepper = seconds_for(stepper, steps);
    ratios.push_back(t_stepper / t_reference);
    state.SetIterationTime(t_reference + t_stepper);
  }
  benchmark::DoNotOptimize(reference);
  benchmark::DoNotOptimize(stepper);
  std::sort(ratios.begin(), ratios.end());
  state.counters["ratio_median"] = ratios[ratios.size() / 2];
  state.counters["ratio_min"] = ratios.front();
  state.counters["ratio_max"] = ratios.back();
}

/// The paired ratio of the header comment for `stepper`, started at the leapfrog's start.
template <class Stepper>
void over_leapfrog(benchmark::State& state, Stepper& stepper) {
  constexpr long kSteps = 20000;
  Leapfrog lf = leapfrog();
  std::vector<double> ratios;
  for (auto _ : state) {
    const double t_leapfrog = seconds_for(lf, kSteps);
    const double t_stepper = seconds_for(stepper, kSteps);
    ratios.push_back(t_stepper / t_leapfrog);
    state.SetIterationTime(t_leapfrog + t_stepper);
  }
  benchmark::DoNotOptimize(lf.x);
  benchmark::DoNotOptimize(stepper.q().data());
  std::sort(ratios.begin(), ratios.end());
  state.counters["ratio_median"] = ratios[ratios.size() / 2];
  state.counters["ratio_min"] = ratios.front();
  state.counters["ratio_max"] = ratios.back();
}

/// The paired ratio for the explicit step `mechint run kepler --method vi-trapezoid` takes: the
/// model's own step (model_step = 1, model_kernels.h's separable_step) or the methods'
/// drift and kick around the model's L_q (0).
void BM_KeplerKernelTrapezoidOverLeapfrog(benchmark::State& state) {
  const auto model = kernel::ModelAdapter<Kepler>::kernels(Kepler{kMu});
  StepCheckOptions unchecked;  // as above: the model's own step runs unchecked
  unchecked.enabled = false;
  kernel::KernelGalerkinIntegrator vi(*model, kernel::lobatto_tableau(2), kStep, kernel::composition_named("none"),
                                      NewtonOptions{}, unchecked);
  VecD<2> q0, v0;
  Kepler::pericentre_start(kMu, 1.0, 0.5, q0, v0);
  vi.allow_model_explicit_steps(state.range(0) != 0);
  vi.start_from_velocity(q0, v0);
  if (!vi.explicit_steps() || vi.model_takes_explicit_steps() != (state.range(0) != 0))
    state.SkipWithError("the explicit path is not where it should be");
  over_leapfrog(state, vi);
}
BENCHMARK(BM_KeplerKernelTrapezoidOverLeapfrog)->ArgName("model_step")->Arg(1)->Arg(0)->UseManualTime()->Iterations(41);

void BM_KeplerComposedMidpointOverLeapfrog(benchmark::State& state) {
  const std::vector<double> gammas = kernel::composition_named("kahan-li8").gammas;
  const double h = 2 * M_PI / 148;
  constexpr long kSteps = 2000;  // 34 000 sub-steps
  VecD<2> q0, v0;
  Kepler::pericentre_start(kMu, 1.0, 0.5, q0, v0);
  ComposedSteps<LeapfrogSubsteps> leapfrog_steps{LeapfrogSubsteps(q0, v0), gammas, h};
  if (state.range(0) != 0) {
    ComposedSteps<MidpointSubsteps> midpoint_steps{MidpointSubsteps(q0, v0), gammas, h};
    paired_ratio(state, leapfrog_steps, midpoint_steps, kSteps);
    state.counters["newton_per_substep"] =
        static_cast<double>(midpoint_steps.s.updates) / (static_cast<double>(state.iterations()) * kSteps * gammas.size());
    return;
  }
  const auto model = kernel::ModelAdapter<Kepler>::kernels(Kepler{kMu});
  kernel::KernelGalerkinIntegrator vi(*model, kernel::gauss_tableau(1), h, kernel::composition_named("kahan-li8"));
  vi.start_from_velocity(q0, v0);
  paired_ratio(state, leapfrog_steps, vi, kSteps);
}
BENCHMARK(BM_KeplerComposedMidpointOverLeapfrog)->ArgName("hand_written")->Arg(1)->Arg(0)->UseManualTime()->Iterations(21);

}  // namespace
