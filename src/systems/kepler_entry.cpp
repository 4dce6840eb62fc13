#include "app/runge_kutta_simulation.hpp"
#include "mechint/systems/kepler.hpp"
#include "systems/entries.hpp"

namespace mechint::systems {

app::SystemEntry kepler_entry() {
  using app::ParameterSpec;
  app::SystemEntry e;
  e.name = "kepler";
  e.summary = "planar Kepler problem L = |qdot|^2/2 + mu/|q|; default: pericentre of a = 1, e = 0.5";
  e.methods = app::unconstrained_methods();
  e.parameters = [](const auto&) {
    VecD<2> q0, v0;
    Kepler::pericentre_start(1.0, 1.0, 0.5, q0, v0);
    return join({ParameterSpec::real("mu", 1.0, "gravitational parameter", 1e-300),
                 ParameterSpec::real("x", q0[0], "initial x"),
                 ParameterSpec::real("y", q0[1], "initial y"),
                 ParameterSpec::real("vx", v0[0], "initial x velocity"),
                 ParameterSpec::real("vy", v0[1], "initial y velocity")},
                join(app::integrator_parameters(), app::runge_kutta_parameters()));
  };
  e.make = [](const app::ParameterValues& v, const std::string& method) {
    const VecD<2> q0(v.real("x"), v.real("y"));
    if (q0.norm() == 0.0) throw std::invalid_argument("kepler: the start may not be at the origin");
    return app::make_simulation(Kepler{v.real("mu")}, {{"x", "y"}, {"J"}}, q0,
                                            VecD<2>(v.real("vx"), v.real("vy")),
                                            app::read_start_settings(v), method);
  };
  return e;
}

}  // namespace mechint::systems
