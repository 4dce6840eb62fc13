#include "app/runge_kutta_simulation.hpp"
#include "mechint/systems/harmonic_oscillator.hpp"
#include "systems/entries.hpp"

namespace mechint::systems {

app::SystemEntry harmonic_oscillator_entry() {
  using app::ParameterSpec;
  app::SystemEntry e;
  e.name = "harmonic-oscillator";
  e.summary = "L = m qdot^2/2 - k q^2/2; exact solution q0 cos(wt) + (v0/w) sin(wt)";
  e.methods = app::unconstrained_methods();
  e.parameters = [](const auto&) {
    return join({ParameterSpec::real("m", 1.0, "mass", 1e-300),
                 ParameterSpec::real("k", 1.0, "stiffness", 0.0),
                 ParameterSpec::real("q", 1.0, "initial position"),
                 ParameterSpec::real("v", 0.0, "initial velocity")},
                join(app::integrator_parameters(), app::runge_kutta_parameters()));
  };
  e.make = [](const app::ParameterValues& v, const std::string& method) {
    const HarmonicOscillator model{v.real("m"), v.real("k")};
    return app::make_simulation(model, {{"q"}, {}}, VecD<1>(v.real("q")),
                                            VecD<1>(v.real("v")), app::read_start_settings(v),
                                            method);
  };
  return e;
}

}  // namespace mechint::systems
