// ns per step of the impact driver on derivative kernels (src/kernel/kernel_impact_driver.hpp; the
// built-in model's kernels by AD, kernel/model_adapter.hpp) next to the fixed-size one
// (integrate/impact_driver.hpp), on 004's double pendulum with its wall from the Fig. 2 start at
// h = 0.058: the flows vi-trapezoid and stormer-verlet with each impact law. One benchmark runs
// 130 steps from the start (five impacts) per iteration, so every iteration resolves the same
// impacts; tests/test_kernel_impacts.cpp holds the two drivers to the same flow.
#include <benchmark/benchmark.h>

#include "kernel/kernel_impact_driver.hpp"
#include "kernel/model_adapter.hpp"
#include "mechint/integrate/impact_driver.hpp"
#include "mechint/integrate/stormer_verlet.hpp"
#include "mechint/integrate/trapezoid_flow.hpp"
#include "mechint/systems/double_pendulum.hpp"

namespace {
/// The impact flow a method's name chooses (as the registry's rows do, src/methods/impact_flows.cpp).
[[maybe_unused]] mechint::kernel::Flow flow_of(std::string_view method) {
  return method == "stormer-verlet" ? mechint::kernel::Flow::kStormerVerlet : mechint::kernel::Flow::kTrapezoid;
}
}  // namespace


namespace {

using namespace mechint;
using systems::DoublePendulum;

constexpr int kSteps = 130;
constexpr double kH = 0.058;

ImpactOptions options(const benchmark::State& state) {
  ImpactOptions o;
  o.law = static_cast<ImpactLaw>(state.range(0));
  o.record_impacts = false;
  return o;
}

template <class Driver>
void run_from_start(benchmark::State& state, Driver& driver, const VecD<2>& q0, const VecD<2>& p0) {
  for (auto _ : state) {
    if constexpr (requires { driver.start(q0, p0); })
      driver.start(q0, p0);
    else
      driver.start(kernel::Vector(q0), kernel::Vector(p0));
    for (int k = 0; k < kSteps; ++k) driver.step();
    benchmark::DoNotOptimize(driver.q().data());
  }
  state.counters["ns_per_step"] = benchmark::Counter(static_cast<double>(state.iterations()) * kSteps * 1e-9,
                                                     benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

template <template <class> class Flow>
void BM_ImpactsFixed(benchmark::State& state) {
  ImpactDriver<Flow<DoublePendulum>> driver(DoublePendulum{}, kH, options(state));
  run_from_start(state, driver, VecD<2>(0.5647, 1.1106), VecD<2>(3.7270, 0.2415));
}

void BM_ImpactsKernels(benchmark::State& state, const char* method) {
  // The kernels `mechint run double-pendulum --set wall=1` runs on (the rules' discrete derivatives
  // supplied by a jet of jets, as the fixed-size flow computes them).
  const auto kernels = kernel::ModelAdapter<DoublePendulum>::kernels_for_runs(DoublePendulum{}, /*with_walls=*/true);
  kernel::KernelImpactDriver driver(*kernels, flow_of(method), kH, options(state));
  run_from_start(state, driver, VecD<2>(0.5647, 1.1106), VecD<2>(3.7270, 0.2415));
}

// law: 0 dtec, 1 ctec, 2 mhc (ImpactLaw's order).
BENCHMARK(BM_ImpactsFixed<TrapezoidFlow>)->ArgName("law")->DenseRange(0, 2)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_ImpactsKernels, trapezoid, "vi-trapezoid")->ArgName("law")->DenseRange(0, 2)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ImpactsFixed<StormerVerletFlow>)->ArgName("law")->DenseRange(0, 2)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_ImpactsKernels, stormer_verlet, "stormer-verlet")->ArgName("law")->DenseRange(0, 2)->Unit(benchmark::kMicrosecond);

}  // namespace
