#pragma once
// The timed loop of a benchmark of one integrator's steps: ns_per_step (and items processed).
#include <benchmark/benchmark.h>

namespace mechint::bench {

template <class Integrator>
void run_steps(benchmark::State& state, Integrator& integ) {
  long steps = 0;
  for (auto _ : state) {
    integ.step();
    benchmark::DoNotOptimize(integ.q().data());
    ++steps;
  }
  state.SetItemsProcessed(steps);
  state.counters["ns_per_step"] =
      benchmark::Counter(static_cast<double>(steps) * 1e-9, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

}  // namespace mechint::bench
