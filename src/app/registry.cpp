#include <cmath>
#include <stdexcept>

#include "app/simulation.hpp"
#include "experiments/experiments.hpp"
#include "systems/entries.hpp"

namespace mechint::app {

const std::vector<SystemEntry>& all_systems() {
  static const std::vector<SystemEntry> entries = {
      systems::double_pendulum_entry(),
      systems::point_mass_wall_entry(),
      systems::harmonic_oscillator_entry(),
      systems::kepler_entry(),
      systems::spherical_pendulum_entry(),
      systems::pendulum_chain_entry(),
      systems::three_body_entry(),
      systems::rigid_body_entry(),
      systems::double_spherical_pendulum_entry(),
  };
  return entries;
}

const std::vector<MethodEntry>& all_methods() {
  static const std::vector<MethodEntry> entries = {
      {"vi-midpoint", "variational integrator, midpoint discrete Lagrangian (000 eq. 4.1), order 2"},
      {"vi-trapezoid", "variational integrator, trapezoid discrete Lagrangian (004 eq. 16), order 2"},
      {"stormer-verlet", "generalized Stormer-Verlet in Hamiltonian form (Lobatto IIIA-IIIB), order 2; systems with impacts"},
      {"vi-first-order", "variational integrator, right-endpoint discrete Lagrangian (000 eq. 4.20), order 1"},
      {"rk4", "classical Runge-Kutta, fixed step h, on the Euler-Lagrange ODE (Boost.Odeint; unconstrained systems)"},
      {"dopri5", "Dormand-Prince 5(4), adaptive (--set rtol, atol), Boost.Odeint; unconstrained systems"},
      {"rk78", "Runge-Kutta-Fehlberg 7(8), adaptive, the high-accuracy reference; unconstrained systems"},
      {"energy-momentum", "energy-momentum integrator of 003 sec. 5 (constant mass matrix, quadratic constraints)"},
      {"dae", "SUNDIALS IDA (BDF, adaptive; --set rtol, atol) on the stabilised index-2 (GGL) DAE; constrained systems"},
  };
  return entries;
}

const std::vector<ExperimentEntry>& all_experiments() {
  static const std::vector<ExperimentEntry> entries = {
      experiments::core_convergence_entry(),
      experiments::impacts_entry(),
      experiments::three_body_entry(),
      experiments::rigid_body_entry(),
      experiments::double_spherical_pendulum_entry(),
      experiments::dsp_dae_entry(),
      experiments::pattern_evocation_entry(),
  };
  return entries;
}

const SystemEntry& find_system(const std::string& name) {
  for (const auto& e : all_systems())
    if (e.name == name) return e;
  std::string known;
  for (const auto& e : all_systems()) known += (known.empty() ? "" : ", ") + e.name;
  throw std::invalid_argument("unknown system '" + name + "' (known: " + known + ")");
}

const ExperimentEntry& find_experiment(const std::string& name) {
  for (const auto& e : all_experiments())
    if (e.name == name) return e;
  std::string known = "all";
  for (const auto& e : all_experiments()) known += ", " + e.name;
  throw std::invalid_argument("unknown experiment '" + name + "' (known: " + known + ")");
}

long steps_to_reach(double t_end, double h) {
  // A t_end that is a multiple of h up to round-off gives exactly that many steps.
  return static_cast<long>(std::ceil(t_end / h - 1e-9));
}

long output_stride(double output_every, double h) {
  if (output_every <= 0.0) return 1;
  return std::max(1L, std::lround(output_every / h));
}

}  // namespace mechint::app
