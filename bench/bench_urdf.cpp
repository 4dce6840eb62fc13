// Step cost of URDF robots on the dense path (docs/robots.md, DESIGN §12): the robots of
// examples/robots/ and the 3D chains of examples/robots/chains/ (10, 30, 100 links), each opened
// as `mechint run ROBOT.urdf` opens it (its model compiled once into the cache, outside the timed
// loop) and stepped by vi-midpoint at h = 1 ms from a deflected start, through the C++ API's
// Integrator (the stepping session of the command line and Python). Counters: ns_per_step and
// ns_per_dof (per step, per coordinate). DART 6.12's own explicit step on the same files is timed by
// bench/dart_step.py; docs/performance.md ("Robots") has both side by side.
#include <benchmark/benchmark.h>

#include <string>

#include "mechint/system.hpp"

namespace {

std::string robots(const std::string& file) { return std::string(MECHINT_SOURCE_DIR) + "/examples/robots/" + file; }

void step_robot(benchmark::State& state, const std::string& file, const mechint::Settings& start) {
  const mechint::System system = mechint::System::open(robots(file), start);
  mechint::Integrator integrator = system.integrator("vi-midpoint", 0.001);
  const auto n = static_cast<double>(integrator.q().size());
  integrator.step(10);  // warm: the first steps allocate the stepper's workspace
  long steps = 0;
  for (auto _ : state) {
    integrator.step();
    ++steps;
  }
  benchmark::DoNotOptimize(integrator.q());
  state.counters["ns_per_step"] =
      benchmark::Counter(static_cast<double>(steps) * 1e-9, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["ns_per_dof"] =
      benchmark::Counter(static_cast<double>(steps) * n * 1e-9, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

BENCHMARK_CAPTURE(step_robot, double_pendulum, std::string("double-pendulum.urdf"), mechint::Settings{{"shoulder", 0.5}})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(step_robot, arm7, std::string("arm7.urdf"), mechint::Settings{{"joint2", 0.5}, {"joint4", -1.0}})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(step_robot, torso, std::string("torso.urdf"),
                  mechint::Settings{{"left_shoulder", 0.5}, {"right_elbow", -0.5}})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(step_robot, gripper, std::string("gripper.urdf"),
                  mechint::Settings{{"left_finger_joint", 0.01}, {"right_finger_joint", -0.01}, {"wrist_dot", 1.0}})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(step_robot, chain_10, std::string("chains/chain-10.urdf"), mechint::Settings{{"joint1", 0.5}})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(step_robot, chain_30, std::string("chains/chain-30.urdf"), mechint::Settings{{"joint1", 0.5}})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(step_robot, chain_100, std::string("chains/chain-100.urdf"), mechint::Settings{{"joint1", 0.5}})
    ->Unit(benchmark::kMicrosecond);

}  // namespace
