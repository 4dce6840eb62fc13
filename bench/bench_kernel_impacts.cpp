// ns per step of the impact driver on derivative kernels (src/kernel/kernel_impact_driver.hpp; the
// built-in model's kernels by AD, kernel/model_adapter.hpp) on 004's double pendulum with its wall
// from the Fig. 2 start at h = 0.058: the flows vi-trapezoid and stormer-verlet with each impact law.
// One benchmark runs 130 steps from the start (five impacts) per iteration, so every iteration
// resolves the same impacts.
#include <benchmark/benchmark.h>

#include "kernel/kernel_impact_driver.hpp"
#include "kernel/model_adapter.hpp"
#include "mechint/systems/double_pendulum.hpp"

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

void run_from_start(benchmark::State& state, kernel::KernelImpactDriver& driver, const VecD<2>& q0, const VecD<2>& p0) {
  for (auto _ : state) {
    driver.start(kernel::Vector(q0), kernel::Vector(p0));
    for (int k = 0; k < kSteps; ++k) driver.step();
    benchmark::DoNotOptimize(driver.q().data());
  }
  state.counters["ns_per_step"] = benchmark::Counter(static_cast<double>(state.iterations()) * kSteps * 1e-9,
                                                     benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_Impacts(benchmark::State& state, kernel::Flow flow) {
  // The kernels `mechint run double-pendulum --set wall=1` runs on (the rules' discrete derivatives
  // supplied by a jet of jets).
  const auto kernels = kernel::ModelAdapter<DoublePendulum>::kernels_for_runs(DoublePendulum{}, /*with_walls=*/true);
  kernel::KernelImpactDriver driver(*kernels, flow, kH, options(state));
  run_from_start(state, driver, VecD<2>(0.5647, 1.1106), VecD<2>(3.7270, 0.2415));
}

// law: 0 dtec, 1 ctec, 2 mhc (ImpactLaw's order).
BENCHMARK_CAPTURE(BM_Impacts, trapezoid, kernel::Flow::kTrapezoid)->ArgName("law")->DenseRange(0, 2)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Impacts, stormer_verlet, kernel::Flow::kStormerVerlet)->ArgName("law")->DenseRange(0, 2)->Unit(benchmark::kMicrosecond);

}  // namespace
