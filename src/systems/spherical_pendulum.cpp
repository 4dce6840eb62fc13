#include <cmath>

#include "app/drawing_helpers.hpp"
#include "app/system_entry.hpp"
#include "kernel/model_adapter.txx"
#include "mechint/systems/spherical_pendulum.hpp"

namespace mechint::systems {
namespace {

/// The bob on its rod from the pivot at the origin, at (x, y, z) or at the angles theta, phi.
app::DrawingText spherical_pendulum_drawing(const app::ParameterValues& v) {
  app::DrawingText d;
  d.fixed.push_back({"pivot", {0.0, 0.0, 0.0}});
  if (v.choice("coordinates") == "cartesian") {
    d.coordinates = {"x", "y", "z"};
    d.points.push_back({"bob", {"x", "y", "z"}});
  } else {
    const std::string l = app::drawing_number(v.real("l"));
    d.coordinates = {"theta", "phi"};
    d.points.push_back({"bob", {l + "*sin(theta)*cos(phi)", l + "*sin(theta)*sin(phi)", "-" + l + "*cos(theta)"}});
  }
  d.links.emplace_back("pivot", "bob");
  return d;
}

app::SystemEntry spherical_pendulum_entry() {
  using app::ParameterSpec;
  auto e = app::make_system_entry(
      "spherical-pendulum",
      "point mass on a rod, gravity -z; coordinates=cartesian (x,y,z with |q| = l) or angles "
      "(theta, phi through a chart, 000 sec. 4.2)",
      "vi-midpoint",
      [](const app::Overrides&) {
        // Default start: 60 degrees from the downward vertical, swinging about z at 2 rad/s.
        const double l = 1.0, theta = M_PI / 3, phi_dot = 2.0;
        return std::vector<ParameterSpec>{
            ParameterSpec::choice("coordinates", {"cartesian", "angles"},
                                  "constrained Cartesian formulation or spherical-angle chart"),
            ParameterSpec::real("m", 1.0, "mass", 1e-300),
            ParameterSpec::real("l", l, "rod length", 1e-300),
            ParameterSpec::real("g", 9.81, "gravity"),
            ParameterSpec::real("x", l * std::sin(theta), "initial x"),
            ParameterSpec::real("y", 0.0, "initial y"),
            ParameterSpec::real("z", -l * std::cos(theta), "initial z"),
            ParameterSpec::real("vx", 0.0, "initial x velocity"),
            ParameterSpec::real("vy", l * std::sin(theta) * phi_dot, "initial y velocity"),
            ParameterSpec::real("vz", 0.0, "initial z velocity")};
      },
      [](const app::ParameterValues& v, auto&& f) {
        const SphericalPendulum model{v.real("m"), v.real("l"), v.real("g")};
        const VecD<3> x0(v.real("x"), v.real("y"), v.real("z"));
        const VecD<3> v0(v.real("vx"), v.real("vy"), v.real("vz"));
        if (v.choice("coordinates") == "cartesian") {
          app::Problem<SphericalPendulum> p(model);
          p.q0 = x0;
          p.initial_data = v0;
          p.labels = {{"x", "y", "z"}, {"Jz"}};
          return f(p);
        }
        // The same physical start in angles; the checks of the Cartesian start apply first.
        const double off = std::abs(x0.squaredNorm() - model.length * model.length);
        if (!(off <= 1e-9))
          throw InvalidStart("start is off the constraint manifold: |g(q0)| = " + format_number(off) + " > 1e-9");
        if (!(std::abs(x0.dot(v0)) <= 1e-9))
          throw InvalidStart("initial velocity is not tangent to the sphere: |2 q0.v0| = " +
                             format_number(2 * std::abs(x0.dot(v0))));
        app::Problem<SphericalPendulum, SphericalAnglesChart> p(model, SphericalAnglesChart{model.length});
        p.q0 = p.chart.coordinates_of(x0);
        const auto j = chart_jacobian(p.chart, p.q0);
        p.initial_data = (j.transpose() * j).partialPivLu().solve(j.transpose() * v0);
        p.labels = {{"theta", "phi"}, {"Jz"}};
        return f(p);
      });
  e.drawing = app::drawing_from_text(e.name, spherical_pendulum_drawing);
  return e;
}

MECHINT_REGISTER_SYSTEM(spherical_pendulum_entry);

}  // namespace
}  // namespace mechint::systems

namespace mechint::systems {
/// The model in the chart's angles (000 §4.2), whose rules are the restricted discrete Lagrangians.
using SphericalPendulumInAngles = ChartModel<SphericalPendulum, SphericalAnglesChart>;
}  // namespace mechint::systems

// The kernels of its runs (app/builtin_kernels.hpp), in both coordinates, compiled here once.
MECHINT_INSTANTIATE_MODEL_KERNELS(mechint::systems::SphericalPendulum);
MECHINT_INSTANTIATE_MODEL_KERNELS(mechint::systems::SphericalPendulumInAngles);
