// ns per step on the systems of 000 §5 at h = 1e-4, against 000's CPU times on an SGI Indy at the same
// step (30 s = 3e5 steps): rigid body (Table 1) 97.62 s → 325 µs per step; double spherical pendulum
// (Table 2) DVP 73.648 s → 245 µs, EM 103.871 s → 346 µs per step. The counter source_over_ours is
// 000's time per step over ours. Every method runs on the built-ins' derivative kernels (AD of the
// model structs, compiled once in the library); the midpoint steps with the rule composed from L's
// derivatives (supplied:0) or supplied by the model (supplied:1: the rigid body's eq. 5.8).
#include <benchmark/benchmark.h>

#include "kernel/builtin_model_kernels.hpp"
#include "kernel/energy_momentum_integrator.hpp"
#include "kernel/kernel_variational_integrator.hpp"

namespace {

using namespace mechint;

template <class Integrator>
void run_steps(benchmark::State& state, Integrator& integ, double source_ns_per_step) {
  long steps = 0;
  for (auto _ : state) {
    integ.step();
    benchmark::DoNotOptimize(integ.q().data());
    ++steps;
  }
  state.SetItemsProcessed(steps);
  state.counters["ns_per_step"] = benchmark::Counter(static_cast<double>(steps) * 1e-9,
                                                     benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["source_over_ours"] =
      benchmark::Counter(static_cast<double>(steps) * 1e-9 * source_ns_per_step, benchmark::Counter::kIsRate);
}

/// The kernels of a built-in model, with its rules' discrete derivatives supplied (`supplied` = 1:
/// D1, D12 Ld by a jet of jets over (q0, q1), model_kernels.h `discrete_rules`) or composed by the
/// methods from L's Hessian over (q, v) (0).
template <class M>
std::shared_ptr<const kernel::KernelModel> kernels_of(const M& model, bool supplied) {
  return supplied ? kernel::ModelAdapter<M>::kernels_with_discrete_rules(model) : kernel::ModelAdapter<M>::kernels(model);
}

/// The double spherical pendulum's midpoint VI (pattern I).
void BM_DoubleSphericalPendulumVi(benchmark::State& state) {
  const systems::DoubleSphericalPendulum model;
  const auto st = systems::complete_dsp_start(model, systems::named_dsp_start("pattern-1"));
  const auto kernels = kernels_of(model, state.range(0) != 0);
  kernel::KernelVariationalIntegrator vi(*kernels, kernel::Rule::kMidpoint, 1e-4);
  vi.start_from_velocity(st.q, st.v);
  run_steps(state, vi, 73.648 / 3e5 * 1e9);
}
BENCHMARK(BM_DoubleSphericalPendulumVi)->ArgName("supplied")->Arg(0)->Arg(1);

/// The rigid body's midpoint VI: composed from L at the quaternions' midpoint, or its own eq. 5.8
/// supplied (000's Table 1 method).
void BM_RigidBodyVi(benchmark::State& state) {
  using systems::RigidBody;
  const Eigen::VectorXd q0 = VecD<4>(1, 0, 0, 0);
  const Eigen::VectorXd qdot0 = RigidBody::velocity_from_body_rate(VecD<4>(1, 0, 0, 0), VecD<3>(0, 3, 4));
  const auto kernels = kernels_of(RigidBody{}, state.range(0) != 0);
  kernel::KernelVariationalIntegrator vi(*kernels, kernel::Rule::kMidpoint, 1e-4);
  vi.start_from_velocity(q0, qdot0);
  run_steps(state, vi, 97.620 / 3e5 * 1e9);
}
BENCHMARK(BM_RigidBodyVi)->ArgName("supplied")->Arg(0)->Arg(1);

/// The energy–momentum method (000 §5.2) on the double spherical pendulum, pattern I.
void BM_DoubleSphericalPendulumEnergyMomentum(benchmark::State& state) {
  const systems::DoubleSphericalPendulum model;
  const auto st = systems::complete_dsp_start(model, systems::named_dsp_start("pattern-1"));
  const auto kernels = kernel::ModelAdapter<systems::DoubleSphericalPendulum>::kernels(model);
  kernel::KernelEnergyMomentumIntegrator em(*kernels, 1e-4);
  em.start_from_velocity(st.q, st.v);
  run_steps(state, em, 103.871 / 3e5 * 1e9);
}
BENCHMARK(BM_DoubleSphericalPendulumEnergyMomentum);

/// The velocity of a state from its momentum (the inverse Legendre transform by Newton), what every
/// output row of the energy column costs.
void BM_DoubleSphericalPendulumVelocity(benchmark::State& state) {
  const systems::DoubleSphericalPendulum model;
  const auto st = systems::complete_dsp_start(model, systems::named_dsp_start("pattern-1"));
  const auto kernels = kernel::ModelAdapter<systems::DoubleSphericalPendulum>::kernels(model);
  kernel::KernelVariationalIntegrator vi(*kernels, kernel::Rule::kMidpoint, 1e-4);
  vi.start_from_velocity(st.q, st.v);
  vi.step();
  for (auto _ : state) benchmark::DoNotOptimize(vi.velocity());
}
BENCHMARK(BM_DoubleSphericalPendulumVelocity);

}  // namespace
