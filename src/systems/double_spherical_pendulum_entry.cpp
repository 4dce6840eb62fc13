#include <cmath>

#include "app/dae_simulation.hpp"
#include "app/energy_momentum_simulation.hpp"
#include "app/variational_simulation.hpp"
#include "mechint/systems/double_spherical_pendulum.hpp"
#include "systems/entries.hpp"

namespace mechint::systems {

app::SystemEntry double_spherical_pendulum_entry() {
  using app::ParameterSpec;
  app::SystemEntry e;
  e.name = "double-spherical-pendulum";
  e.summary =
      "two point masses on rods, Cartesian with two length constraints, gravity -z (000 sec. 5.2, 003); "
      "starts pattern-1 (default), pattern-2, pattern-3, relative-equilibrium (003 sec. 4); z, z' from the "
      "constraints";
  e.methods = variational_methods();
  e.methods.push_back("energy-momentum");
  e.methods.push_back("dae");
  e.parameters = [](const auto&) {
    const DoubleSphericalPendulum d;
    const HorizontalStart s = named_dsp_start("pattern-1");
    return join({ParameterSpec::real("m1", d.m1, "first mass", 1e-300),
                 ParameterSpec::real("m2", d.m2, "second mass", 1e-300),
                 ParameterSpec::real("l1", d.l1, "first rod length", 1e-300),
                 ParameterSpec::real("l2", d.l2, "second rod length", 1e-300),
                 ParameterSpec::real("g", d.gravity, "gravity"),
                 ParameterSpec::choice("start", {"pattern-1", "pattern-2", "pattern-3", "relative-equilibrium"},
                                       "named start of 003 sec. 4 (x1 ... vy2 override it)"),
                 ParameterSpec::real("x1", s.x1, "initial x of mass 1"),
                 ParameterSpec::real("y1", s.y1, "initial y of mass 1"),
                 ParameterSpec::real("x2", s.x2, "initial x of mass 2"),
                 ParameterSpec::real("y2", s.y2, "initial y of mass 2"),
                 ParameterSpec::real("vx1", s.vx1, "initial x velocity of mass 1"),
                 ParameterSpec::real("vy1", s.vy1, "initial y velocity of mass 1"),
                 ParameterSpec::real("vx2", s.vx2, "initial x velocity of mass 2"),
                 ParameterSpec::real("vy2", s.vy2, "initial y velocity of mass 2")},
                join(app::integrator_parameters(), app::dae_parameters()));
  };
  e.make = [](const app::ParameterValues& v, const std::string& method) -> std::unique_ptr<app::Simulation> {
    DoubleSphericalPendulum model;
    model.m1 = v.real("m1");
    model.m2 = v.real("m2");
    model.l1 = v.real("l1");
    model.l2 = v.real("l2");
    model.gravity = v.real("g");
    HorizontalStart s = named_dsp_start(v.choice("start"));
    const auto pick = [&](const char* name, double& field) {
      if (v.was_set(name)) field = v.real(name);
    };
    pick("x1", s.x1), pick("y1", s.y1), pick("x2", s.x2), pick("y2", s.y2);
    pick("vx1", s.vx1), pick("vy1", s.vy1), pick("vx2", s.vx2), pick("vy2", s.vy2);
    const DspState st = complete_dsp_start(model, s);
    const app::OutputLabels labels{{"x1", "y1", "z1", "x2", "y2", "z2"}, {"Jz"}};
    const app::StartSettings start = app::read_start_settings(v);
    if (method == "dae") return app::make_dae_simulation(model, labels, st.q, st.v, start);
    if (method == "energy-momentum")
      return std::make_unique<app::EnergyMomentumSimulation<DoubleSphericalPendulum>>(model, labels, st.q, st.v,
                                                                                       start.newton);
    return app::make_variational_simulation(model, labels, st.q, st.v, start, method);
  };
  return e;
}

}  // namespace mechint::systems
