#include <cmath>

#include "app/dae_simulation.hpp"
#include "app/variational_simulation.hpp"
#include "mechint/systems/spherical_pendulum.hpp"
#include "systems/entries.hpp"

namespace mechint::systems {

app::SystemEntry spherical_pendulum_entry() {
  using app::ParameterSpec;
  app::SystemEntry e;
  e.name = "spherical-pendulum";
  e.summary =
      "point mass on a rod, gravity -z; coordinates=cartesian (x,y,z with |q| = l) or angles "
      "(theta, phi through a chart, 000 sec. 4.2)";
  e.methods = variational_methods();
  e.methods.push_back("dae");
  e.parameters = [](const auto&) {
    // Default start: 60 degrees from the downward vertical, swinging about z at 2 rad/s.
    const double l = 1.0, theta = M_PI / 3, phi_dot = 2.0;
    return join({ParameterSpec::choice("coordinates", {"cartesian", "angles"},
                                       "constrained Cartesian formulation or spherical-angle chart"),
                 ParameterSpec::real("m", 1.0, "mass", 1e-300),
                 ParameterSpec::real("l", l, "rod length", 1e-300),
                 ParameterSpec::real("g", 9.81, "gravity"),
                 ParameterSpec::real("x", l * std::sin(theta), "initial x"),
                 ParameterSpec::real("y", 0.0, "initial y"),
                 ParameterSpec::real("z", -l * std::cos(theta), "initial z"),
                 ParameterSpec::real("vx", 0.0, "initial x velocity"),
                 ParameterSpec::real("vy", l * std::sin(theta) * phi_dot, "initial y velocity"),
                 ParameterSpec::real("vz", 0.0, "initial z velocity")},
                join(app::integrator_parameters(), app::dae_parameters()));
  };
  e.make = [](const app::ParameterValues& v, const std::string& method) -> std::unique_ptr<app::Simulation> {
    const SphericalPendulum model{v.real("m"), v.real("l"), v.real("g")};
    const VecD<3> x0(v.real("x"), v.real("y"), v.real("z"));
    const VecD<3> v0(v.real("vx"), v.real("vy"), v.real("vz"));
    const auto start = app::read_start_settings(v);
    if (method == "dae") {
      if (v.choice("coordinates") != "cartesian")
        throw std::invalid_argument("method dae needs coordinates=cartesian (the constrained formulation)");
      return app::make_dae_simulation(model, {{"x", "y", "z"}, {"Jz"}}, x0, v0, start);
    }
    if (v.choice("coordinates") == "cartesian")
      return app::make_variational_simulation(model, {{"x", "y", "z"}, {"Jz"}}, x0, v0, start, method);
    // The same physical start in angles; the checks of the Cartesian start apply first.
    const double off = std::abs(x0.squaredNorm() - model.length * model.length);
    if (off > 1e-9)
      throw InvalidStart("start is off the constraint manifold: |g(q0)| = " + format_number(off) + " > 1e-9");
    if (std::abs(x0.dot(v0)) > 1e-9)
      throw InvalidStart("initial velocity is not tangent to the sphere: |2 q0.v0| = " + format_number(2 * std::abs(x0.dot(v0))));
    const SphericalAnglesChart chart{model.length};
    const VecD<2> theta0 = chart.coordinates_of(x0);
    const auto j = chart_jacobian(chart, theta0);
    const VecD<2> theta_dot0 = (j.transpose() * j).partialPivLu().solve(j.transpose() * v0);
    return app::make_charted_variational_simulation(model, chart, {{"theta", "phi"}, {"Jz"}}, theta0,
                                                    theta_dot0, start, method);
  };
  return e;
}

}  // namespace mechint::systems
