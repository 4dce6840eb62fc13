#include "app/runge_kutta_simulation.hpp"
#include "mechint/systems/three_body.hpp"
#include "systems/entries.hpp"

namespace mechint::systems {

app::SystemEntry three_body_entry() {
  using app::ParameterSpec;
  app::SystemEntry e;
  e.name = "three-body";
  e.summary =
      "planar circular restricted three-body problem, rotating frame (001 sec. 5); default: Earth-Moon "
      "mu, a bounded orbit around the Earth inside its zero-velocity curve";
  e.methods = app::unconstrained_methods();
  e.parameters = [](const auto&) {
    return join(join({ParameterSpec::real("mu", ThreeBody{}.mu, "mass parameter of the second primary", 0.0, 0.5),
                      ParameterSpec::real("collision_radius", 1e-6,
                                          "a run stops with an error closer than this to a primary", 0.0, 0.5),
                      ParameterSpec::real("x", 0.5, "initial x (rotating frame)"),
                      ParameterSpec::real("y", 0.0, "initial y"),
                      ParameterSpec::real("vx", 0.0, "initial x velocity (rotating frame)"),
                      ParameterSpec::real("vy", 0.9, "initial y velocity")},
                     app::integrator_parameters()),
                app::runge_kutta_parameters());
  };
  e.make = [](const app::ParameterValues& v, const std::string& method) {
    const ThreeBody model{v.real("mu"), v.real("collision_radius")};
    const VecD<2> q0(v.real("x"), v.real("y"));
    model.validate_configuration(q0, 0.0);
    app::OutputLabels labels{{"x", "y"}, {}};
    labels.velocities = {"vx", "vy"};
    labels.energy_column = "jacobi";
    labels.energy_factor = -2.0;  // C = −2E for this Lagrangian
    return app::make_simulation(model, labels, q0, VecD<2>(v.real("vx"), v.real("vy")),
                                app::read_start_settings(v), method);
  };
  return e;
}

}  // namespace mechint::systems
